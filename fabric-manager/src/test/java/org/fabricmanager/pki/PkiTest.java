package org.fabricmanager.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fabric CA, the certificates it issues, their PEM files and the identities they carry. */
class PkiTest {
    @TempDir
    Path dir;

    @Test
    void switchCertificatesNameTheirGuidCanonicallyForRandomGuids() {
        CertificateAuthority ca = CertificateAuthority.create("t", Duration.ofDays(1), Clock.systemUTC());
        long seed = 42;
        Random r = new Random(seed);
        for (int i = 0; i < 20; i++) {
            long guid = r.nextLong() | 1;
            X509Certificate c = ca.issueSwitch(guid, "s" + i, Duration.ofDays(1)).certificate();
            assertThat(FabricIdentity.switchGuid(c)).as("seed %d, guid %x", seed, guid).isEqualTo(OptionalLong.of(guid));
            assertThat(FabricIdentity.switchUri(guid)).matches("urn:fabric:guid:0x[0-9a-f]{16}");
            assertThat(FabricIdentity.isDaemon(c)).isFalse();
        }
    }

    @Test
    void rolesAreKeptApartByKeyUsage() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("t", Duration.ofDays(1), Clock.systemUTC());
        X509Certificate sw = ca.issueSwitch(0x10L, "s", Duration.ofDays(1)).certificate();
        X509Certificate daemon = ca.issueDaemon(List.of("fm.example"), List.of(), Duration.ofDays(1)).certificate();
        assertThat(sw.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2"); // clientAuth only
        // serverAuth, and clientAuth for a hot-standby manager dialling its peers' Raft ports; as a client of the
        // southbound it names no switch and is refused (AgentSession), and no switch certificate can serve
        assertThat(daemon.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        assertThat(FabricIdentity.isDaemon(daemon)).isTrue();
        assertThat(FabricIdentity.daemonCertificateProblem(daemon)).as("what agents require of it").isNull();
        assertThat(FabricIdentity.daemonCertificateProblem(sw)).contains("lacks serverAuth");
        assertThat(FabricIdentity.switchGuid(daemon)).isEmpty();
        assertThat(sw.getBasicConstraints()).isEqualTo(-1);
        assertThat(ca.certificate().getBasicConstraints()).isZero();
        sw.verify(ca.certificate().getPublicKey());
        assertThat(sw.getNotAfter()).isBeforeOrEqualTo(ca.certificate().getNotAfter());
    }

    @Test
    void keysAreWrittenOwnerOnlyAndReadableKeysAreRefused() throws Exception {
        PkiDirectory pki = new PkiDirectory(dir.resolve("pki"));
        pki.init("t", Duration.ofDays(1), List.of(), List.of(), Duration.ofDays(1), Clock.systemUTC());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pki.daemonKey()))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pki.caKey()))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pki.path()))).isEqualTo("rwx------");
        assertThat(Files.readString(pki.daemonKey())).startsWith("-----BEGIN PRIVATE KEY-----");
        TlsMaterial m = pki.daemonMaterial();
        assertThat(FabricIdentity.isDaemon(m.certificate())).isTrue();
        Files.setPosixFilePermissions(pki.daemonKey(), PosixFilePermissions.fromString("rw-r-----"));
        assertThatThrownBy(pki::daemonMaterial).isInstanceOf(PkiException.class)
                .hasMessageContaining(pki.daemonKey().toString()).hasMessageContaining("chmod 600");
    }

    @Test
    void anExistingCaIsNeverOverwrittenAndIssuingNeedsItsKey() throws Exception {
        PkiDirectory pki = new PkiDirectory(dir);
        pki.init("t", Duration.ofDays(1), List.of(), List.of(), Duration.ofDays(1), Clock.systemUTC());
        byte[] ca = Files.readAllBytes(pki.caCertificate());
        assertThatThrownBy(() -> pki.init("t", Duration.ofDays(1), List.of(), List.of(), Duration.ofDays(1),
                Clock.systemUTC())).isInstanceOf(PkiException.class).hasMessageContaining("exists already");
        assertThat(Files.readAllBytes(pki.caCertificate())).isEqualTo(ca);
        CertificateAuthority loaded = pki.loadCa(Clock.systemUTC());
        assertThat(pki.issueSwitch(loaded, 0x77L, "s", Duration.ofDays(1), false)).isTrue();
        assertThat(pki.issueSwitch(loaded, 0x77L, "s", Duration.ofDays(1), false)).as("kept").isFalse();
        byte[] first = Files.readAllBytes(pki.switchCertificate(0x77L));
        assertThat(pki.issueSwitch(loaded, 0x77L, "s", Duration.ofDays(1), true)).as("renewed").isTrue();
        assertThat(Files.readAllBytes(pki.switchCertificate(0x77L))).isNotEqualTo(first);
        Files.delete(pki.caKey());
        assertThatThrownBy(() -> pki.loadCa(Clock.systemUTC())).isInstanceOf(PkiException.class)
                .hasMessageContaining("ca.key: no such file");
    }

    @Test
    void aTrustBundleOfOldAndNewCaFindsTheKeysCertificate() throws Exception {
        PkiDirectory pki = new PkiDirectory(dir);
        pki.init("new", Duration.ofDays(1), List.of(), List.of(), Duration.ofDays(1), Clock.systemUTC());
        CertificateAuthority old = CertificateAuthority.create("old", Duration.ofDays(1), Clock.systemUTC());
        X509Certificate current = PemFiles.readCertificate(pki.caCertificate());
        PemFiles.writeCertificates(pki.caCertificate(), List.of(old.certificate(), current));
        assertThat(PemFiles.readCertificates(pki.caCertificate())).hasSize(2);
        assertThat(pki.loadCa(Clock.systemUTC()).certificate()).isEqualTo(current);
    }

    @Test
    void nonCanonicalGuidUrisAreRefused() throws Exception {
        assertThat(FabricIdentity.switchUri(0xABCL)).isEqualTo("urn:fabric:guid:0x0000000000000abc");
        assertThatThrownBy(() -> PemFiles.readCertificates(dir.resolve("missing.crt"))).isInstanceOf(PkiException.class)
                .hasMessageContaining("no such file");
        Files.write(dir.resolve("big.crt"), new byte[PemFiles.MAX_PEM_BYTES + 1]);
        assertThatThrownBy(() -> PemFiles.readCertificates(dir.resolve("big.crt"))).isInstanceOf(PkiException.class)
                .hasMessageContaining("larger than");
    }

    @Test
    void aNewPkiIssuesEcdsaP256CertificatesSignedByAnRsaCa() throws Exception {
        PkiDirectory pki = new PkiDirectory(dir.resolve("pki"));
        CertificateAuthority ca = pki.init("t", Duration.ofDays(1), List.of(), List.of(), Duration.ofDays(1), Clock.systemUTC());
        assertThat(ca.keyType()).isEqualTo(KeyType.ECDSA_P256);
        assertThat(ca.certificate().getPublicKey().getAlgorithm()).isEqualTo("RSA");
        assertThat(((java.security.interfaces.RSAKey) ca.certificate().getPublicKey()).getModulus().bitLength())
                .isEqualTo(3072);
        pki.issueSwitch(pki.loadCa(Clock.systemUTC()), 0x10L, "s", Duration.ofDays(1), false);
        TlsMaterial sw = pki.switchMaterial(0x10L).orElseThrow();
        assertThat(KeyType.of(sw.key())).contains(KeyType.ECDSA_P256);
        assertThat(KeyType.of(sw.certificate().getPublicKey())).contains(KeyType.ECDSA_P256);
        assertThat(sw.certificate().getSigAlgName()).isEqualTo("SHA256withRSA");
        assertThat(KeyType.of(pki.daemonMaterial().key())).contains(KeyType.ECDSA_P256);
        sw.certificate().verify(ca.certificate().getPublicKey());
    }

    @Test
    void anEd25519PkiAsEarlierReleasesMadeItIsStillReadAndIssuedFrom() throws Exception {
        PkiDirectory pki = new PkiDirectory(dir.resolve("pki"));
        pki.init("t", Duration.ofDays(1), List.of(), List.of(), Duration.ofDays(1), Clock.systemUTC(), KeyType.ED25519);
        CertificateAuthority loaded = pki.loadCa(Clock.systemUTC());
        assertThat(loaded.keyType()).isEqualTo(KeyType.ED25519);
        var materials = pki.switchMaterials(java.util.Map.of(0x20L, "s"), Duration.ofDays(1), Clock.systemUTC());
        TlsMaterial sw = materials.get(0x20L);
        assertThat(KeyType.of(sw.key())).contains(KeyType.ED25519);
        assertThat(sw.certificate().getSigAlgName()).isEqualTo("Ed25519");
        assertThat(FabricIdentity.switchGuid(sw.certificate())).hasValue(0x20L);
        assertThat(KeyType.of(pki.daemonMaterial().certificate().getPublicKey())).contains(KeyType.ED25519);
    }

    @Test
    void keyTypesAreNamedAsOnTheCommandLine() {
        assertThat(KeyType.parse("ecdsa-p256")).isEqualTo(KeyType.ECDSA_P256);
        assertThat(KeyType.parse(" Ed25519 ")).isEqualTo(KeyType.ED25519);
        assertThat(KeyType.DEFAULT).isEqualTo(KeyType.ECDSA_P256);
        assertThatThrownBy(() -> KeyType.parse("rsa")).isInstanceOf(PkiException.class)
                .hasMessageContaining("ecdsa-p256, ed25519");
    }
}
