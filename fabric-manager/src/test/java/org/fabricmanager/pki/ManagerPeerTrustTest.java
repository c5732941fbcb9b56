package org.fabricmanager.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.junit.jupiter.api.Test;

/**
 * The Raft port's trust: manager certificates of the fabric CA only (both TLS key purposes, as pki issues them), never
 * a switch's, never one without key purposes, never another CA's; each refusal reported once, with its kind, and
 * acceptance reported not at all.
 */
class ManagerPeerTrustTest {
    private static final CertificateAuthority FABRIC = CertificateAuthority.create("fabric", Duration.ofDays(1), Clock.systemUTC());
    private final List<String> refused = new ArrayList<>();
    private final ManagerPeerTrust trust = new ManagerPeerTrust(List.of(FABRIC.certificate()),
            (kind, chain, why) -> refused.add(kind + " " + chain[0].getSubjectX500Principal().getName()));

    @Test
    void acceptsADaemonCertificateOfTheFabricCaAsClientAndServer() {
        X509Certificate[] daemon = {FABRIC.issueDaemon(List.of(), List.of(), Duration.ofDays(1)).certificate()};
        assertThatCode(() -> trust.checkClientTrusted(daemon, "UNKNOWN")).doesNotThrowAnyException();
        assertThatCode(() -> trust.checkServerTrusted(daemon, "UNKNOWN")).doesNotThrowAnyException();
        assertThat(refused).isEmpty();
    }

    @Test
    void refusesASwitchCertificateOfTheFabricCa() {
        X509Certificate[] sw = {FABRIC.issueSwitch(0x0002c90300000001L, "leaf", Duration.ofDays(1)).certificate()};
        assertThatThrownBy(() -> trust.checkClientTrusted(sw, "UNKNOWN")).isInstanceOf(CertificateException.class)
                .hasMessageContaining("switch");
        assertThat(refused).singleElement().asString().startsWith("NOT_A_MANAGER CN=leaf,");
    }

    @Test
    void refusesADaemonCertificateOfTheFabricCaWithoutExtendedKeyUsageAtEitherEnd() {
        X509Certificate[] noEku = {TestCertificates.daemon(FABRIC).certificate()};
        assertThatThrownBy(() -> trust.checkClientTrusted(noEku, "UNKNOWN")).isInstanceOf(CertificateException.class)
                .hasMessageContaining("names urn:fabric:daemon but it has no extended key usage");
        assertThatThrownBy(() -> trust.checkServerTrusted(noEku, "UNKNOWN")).isInstanceOf(CertificateException.class)
                .hasMessageContaining("no extended key usage");
        assertThat(refused).containsExactly("NOT_A_MANAGER CN=odd daemon,O=fabric-manager",
                "NOT_A_MANAGER CN=odd daemon,O=fabric-manager");
    }

    @Test
    void refusesDaemonCertificatesWithOneKeyPurposeOrCaTrue() {
        X509Certificate[] serverOnly = {TestCertificates.daemon(FABRIC, KeyPurposeId.id_kp_serverAuth).certificate()};
        X509Certificate[] clientOnly = {TestCertificates.daemon(FABRIC, KeyPurposeId.id_kp_clientAuth).certificate()};
        X509Certificate[] ca = {TestCertificates.daemon(FABRIC, true, KeyPurposeId.id_kp_serverAuth,
                KeyPurposeId.id_kp_clientAuth).certificate()};
        // each passes the JDK's PKIX check for the end whose purpose it has: only the manager check refuses it
        assertThatThrownBy(() -> trust.checkServerTrusted(serverOnly, "UNKNOWN"))
                .hasMessageContaining("lacks clientAuth");
        assertThatThrownBy(() -> trust.checkClientTrusted(clientOnly, "UNKNOWN"))
                .hasMessageContaining("lacks serverAuth");
        assertThatThrownBy(() -> trust.checkClientTrusted(ca, "UNKNOWN")).hasMessageContaining("CA:TRUE");
        assertThat(refused).hasSize(3).allMatch(r -> r.startsWith("NOT_A_MANAGER "));
        X509Certificate[] both = {TestCertificates.daemon(FABRIC, KeyPurposeId.id_kp_serverAuth,
                KeyPurposeId.id_kp_clientAuth).certificate()};
        assertThatCode(() -> trust.checkClientTrusted(both, "UNKNOWN")).as("what pki issue --daemon makes")
                .doesNotThrowAnyException();
    }

    @Test
    void refusesADaemonCertificateOfAnotherCa() {
        CertificateAuthority other = CertificateAuthority.create("other", Duration.ofDays(1), Clock.systemUTC());
        X509Certificate[] daemon = {other.issueDaemon(List.of(), List.of(), Duration.ofDays(1)).certificate()};
        assertThatThrownBy(() -> trust.checkClientTrusted(daemon, "UNKNOWN")).isInstanceOf(CertificateException.class);
        assertThat(refused).hasSize(1).allMatch(r -> r.startsWith("UNTRUSTED "));
    }
}
