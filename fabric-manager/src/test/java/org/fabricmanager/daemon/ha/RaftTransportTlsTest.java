package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.ManagerPeerTrust;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raft members on loopback with real mutual TLS: managers holding daemon certificates of the fabric CA form a group
 * and replicate; a member holding a certificate of another CA, or a switch's certificate of the fabric CA, gets no
 * connection to the others, so it neither receives the log nor lends its vote to a commit. A member asks the leader
 * for a leadership transfer over the same TLS.
 */
class RaftTransportTlsTest {
    private static final int ELECTION_MS = 300;
    private static final CertificateAuthority FABRIC = CertificateAuthority.create("fabric", Duration.ofDays(1), Clock.systemUTC());
    private static final CertificateAuthority OTHER = CertificateAuthority.create("other", Duration.ofDays(1), Clock.systemUTC());

    @TempDir
    Path dir;
    private final List<HaNode> nodes = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (HaNode n : nodes) {
            n.close();
        }
    }

    @Test
    void threeManagersWithFabricDaemonCertificatesElectALeaderAndReplicate() throws Exception {
        start(manager(FABRIC), manager(FABRIC), manager(FABRIC));
        HaNode leader = awaitLeader(nodes);
        write(leader);
        for (int i = 0; i < 3; i++) {
            int member = i;
            await("member n" + (i + 1) + " applies the write", () -> applied(member));
        }
        // a leadership transfer is asked through a client of the same port and TLS (OpenSM's master on a standby)
        HaNode follower = nodes.get(nodes.indexOf(leader) == 0 ? 1 : 0);
        assertThat(follower.transferLeadershipHere(leader.nodeId(), 5_000)).isNull();
        await(follower.nodeId() + " leads", () -> {
            try {
                return follower.view().leading();
            } catch (IOException e) {
                return false;
            }
        });
    }

    @Test
    void aMemberWithAnotherCasCertificateReceivesNothing() throws Exception {
        start(manager(FABRIC), manager(FABRIC), manager(OTHER));
        assertExcluded(ManagerPeerTrust.Refusal.UNTRUSTED);
    }

    @Test
    void aMemberWithASwitchCertificateOfTheFabricCaReceivesNothing() throws Exception {
        IssuedCertificate sw = FABRIC.issueSwitch(0x0002c90300a1b2c3L, "leaf-1", Duration.ofDays(1));
        start(manager(FABRIC), manager(FABRIC), new TlsMaterial(List.of(sw.certificate()), sw.key(),
                List.of(FABRIC.certificate())));
        // n3 dials n1 and n2 with a certificate PKIX accepts for a client: the manager check refuses it
        assertExcluded(ManagerPeerTrust.Refusal.NOT_A_MANAGER);
    }

    @Test
    void oneManagerAmongIntrudersNeverLeadsSoNothingIsCommittedThroughThem() throws Exception {
        IssuedCertificate sw = FABRIC.issueSwitch(0x0002c90300a1b2c4L, "leaf-2", Duration.ofDays(1));
        start(manager(FABRIC), manager(OTHER), new TlsMaterial(List.of(sw.certificate()), sw.key(),
                List.of(FABRIC.certificate())));
        // the intruders keep dialling n1 (pre-votes, elections) and are refused: nobody leads meanwhile
        Await.value("n1 to refuse the intruders 6 times, with no leader meanwhile", () -> {
            for (HaNode n : nodes) {
                assertThat(n.view().role()).as(n.nodeId() + "'s role").isNotEqualTo("LEADER");
            }
            return refusedBy(0);
        }, refused -> refused >= 6);
        // with Ratis's pre-vote, n1 does not even raise its term: no peer answers it
        assertThat(nodes.get(0).view().leaderId()).as("n1 knows a leader").isNull();
    }

    @Test
    void aDaemonCertificateWithoutTheClientPurposeIsRefusedAtStart() throws Exception {
        // what pki init issued before the Raft port had TLS: a server certificate only
        java.security.cert.X509Certificate cert = FABRIC.issueDaemon(List.of(), List.of(), Duration.ofDays(1)).certificate();
        assertThat(cert.getExtendedKeyUsage()).as("daemon certificates are issued for both ends now")
                .contains("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        assertThatThrownBy(() -> RaftTransport.configure(new org.apache.ratis.conf.RaftProperties(), "127.0.0.1", 1,
                new TlsMaterial(List.of(serverOnly()), FABRIC.key(), List.of(FABRIC.certificate())),
                org.fabricmanager.pki.ManagerPeerTrust.Refusals.NONE))
                .isInstanceOf(ConfigException.class).hasMessageContaining("pki issue --daemon");
    }

    /** A certificate with the server purpose alone (the CA's own has no key purposes, so one is made here). */
    private static java.security.cert.X509Certificate serverOnly() throws Exception {
        java.security.KeyPair pair = java.security.KeyPairGenerator.getInstance("EC").generateKeyPair();
        var b = new org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder(FABRIC.certificate(), java.math.BigInteger.TEN,
                new java.util.Date(System.currentTimeMillis() - 60_000), new java.util.Date(System.currentTimeMillis() + 3_600_000),
                new org.bouncycastle.asn1.x500.X500Name("CN=old daemon"), pair.getPublic())
                .addExtension(org.bouncycastle.asn1.x509.Extension.extendedKeyUsage, false,
                        new org.bouncycastle.asn1.x509.ExtendedKeyUsage(org.bouncycastle.asn1.x509.KeyPurposeId.id_kp_serverAuth));
        var signer = new org.bouncycastle.operator.jcajce.JcaContentSignerBuilder(
                "EC".equals(FABRIC.key().getAlgorithm()) ? "SHA256withECDSA" : "SHA256withRSA").build(FABRIC.key());
        return new org.bouncycastle.cert.jcajce.JcaX509CertificateConverter().getCertificate(b.build(signer));
    }

    /**
     * Managers n1 and n2 commit without n3, which neither applies the write nor learns who leads, and they count
     * (for {@code fabric.ha.rejected}) n3's certificate refused for {@code why}.
     */
    private void assertExcluded(ManagerPeerTrust.Refusal why) throws Exception {
        HaNode leader = awaitLeader(nodes.subList(0, 2));
        write(leader);
        await("n1 and n2 apply the write", () -> applied(0) && applied(1));
        await("n1 or n2 counts n3 refused as " + why.tag(),
                () -> nodes.get(0).refusals().count(why) + nodes.get(1).refusals().count(why) > 0);
        // n3 keeps dialling after the commit and keeps being refused: by then it would have had the write
        long refused = refusedBy(0) + refusedBy(1);
        Await.until("n1 and n2 to refuse n3 twice more", () -> refusedBy(0) + refusedBy(1) >= refused + 2);
        assertThat(applied(2)).as("n3 received the committed write").isFalse();
        HaNode.View rogue = nodes.get(2).view();
        assertThat(rogue.leaderId()).as("n3 heard from a leader").isNull();
        assertThat(rogue.role()).isNotEqualTo("LEADER");
    }

    private static TlsMaterial manager(CertificateAuthority ca) throws Exception {
        IssuedCertificate d = ca.issueDaemon(List.of("localhost"), List.of(InetAddress.getByName("127.0.0.1")),
                Duration.ofDays(1));
        return new TlsMaterial(List.of(d.certificate()), d.key(), List.of(ca.certificate()));
    }

    private void start(TlsMaterial... materials) throws Exception {
        HaMembers.start(dir, ELECTION_MS, nodes, materials);
    }

    private static HaNode awaitLeader(List<HaNode> among) {
        return HaLeaders.awaitReady(among, Duration.ofSeconds(15));
    }

    private static void write(HaNode leader) throws Exception {
        leader.write(leader.view().term(), LeaderEndpoints.FILE, "replicated".getBytes(StandardCharsets.UTF_8))
                .get(10, TimeUnit.SECONDS);
    }

    private boolean applied(int member) {
        return Files.exists(dir.resolve("n" + (member + 1)).resolve(LeaderEndpoints.FILE));
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(15), condition);
    }

    /** Certificates member {@code i} refused, for any reason. */
    private long refusedBy(int i) {
        long n = 0;
        for (ManagerPeerTrust.Refusal r : ManagerPeerTrust.Refusal.values()) {
            n += nodes.get(i).refusals().count(r);
        }
        return n;
    }
}
