package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.apache.ratis.conf.RaftProperties;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.FixedKeyManager;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.ManagerPeerTrust;
import org.fabricmanager.pki.TestCertificates;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raft members on loopback with real mutual TLS: managers holding daemon certificates of the fabric CA form a group
 * and replicate; a member holding a certificate of another CA, or a switch's certificate of the fabric CA, gets no
 * connection to the others, so it neither receives the log nor lends its vote to a commit; a peer whose daemon
 * certificate lacks a manager's key purposes gets no answer at all. A member asks the leader for a leadership
 * transfer over the same TLS.
 */
class RaftTransportTlsTest {
    private static final int ELECTION_MS = 300;
    private static final CertificateAuthority FABRIC = CertificateAuthority.create("fabric", Duration.ofDays(1), Clock.systemUTC());
    private static final CertificateAuthority OTHER = CertificateAuthority.create("other", Duration.ofDays(1), Clock.systemUTC());

    @TempDir
    Path dir;
    @RegisterExtension
    final HaMembers.Nodes nodes = new HaMembers.Nodes();

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
    void aDaemonCertificateWithoutBothPurposesIsRefusedAtStart() throws Exception {
        X509Certificate cert = FABRIC.issueDaemon(List.of(), List.of(), Duration.ofDays(1)).certificate();
        assertThat(cert.getExtendedKeyUsage()).as("daemon certificates are issued for both ends now")
                .contains("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        // what pki init issued before the Raft port had TLS (a server certificate only), and one without any purpose
        IssuedCertificate serverOnly = TestCertificates.daemon(FABRIC, KeyPurposeId.id_kp_serverAuth);
        IssuedCertificate noPurpose = TestCertificates.daemon(FABRIC);
        assertThatThrownBy(() -> RaftTransport.configure(new RaftProperties(), "127.0.0.1", 1,
                new TlsMaterial(List.of(serverOnly.certificate()), serverOnly.key(), List.of(FABRIC.certificate())),
                ManagerPeerTrust.Refusals.NONE))
                .isInstanceOf(ConfigException.class).hasMessageContaining("lacks clientAuth")
                .hasMessageContaining("pki issue --daemon");
        assertThatThrownBy(() -> RaftTransport.configure(new RaftProperties(), "127.0.0.1", 1,
                new TlsMaterial(List.of(noPurpose.certificate()), noPurpose.key(), List.of(FABRIC.certificate())),
                ManagerPeerTrust.Refusals.NONE))
                .isInstanceOf(ConfigException.class).hasMessageContaining("no extended key usage")
                .hasMessageContaining("pki issue --daemon");
    }

    @Test
    void aPeerWithADaemonCertificateWithoutKeyPurposesGetsNoAnswerOnTheRaftPort() throws Exception {
        start(manager(FABRIC));
        HaNode member = nodes.get(0);
        String[] hostPort = member.peers().get(member.nodeId()).split(":");
        InetSocketAddress raft = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        IssuedCertificate manager = FABRIC.issueDaemon(List.of("localhost"), List.of(), Duration.ofDays(1));
        assertThat(firstBytes(raft, manager)).as("a manager's certificate: the gRPC server's HTTP/2 settings")
                .isPositive();
        assertThat(member.refusals().count(ManagerPeerTrust.Refusal.NOT_A_MANAGER)).isZero();
        // the JDK's PKIX check takes a certificate without extended key usage for a TLS client
        assertThat(firstBytes(raft, TestCertificates.daemon(FABRIC))).as("no key purposes: refused, nothing read")
                .isEqualTo(-1);
        assertThat(member.refusals().count(ManagerPeerTrust.Refusal.NOT_A_MANAGER)).isEqualTo(1);
    }

    /**
     * Dials the Raft port over TLS 1.3 (ALPN h2, as gRPC) with {@code cert} and reads: how many bytes the port
     * answered once the handshake is through, or -1 when it refused the handshake or closed without a byte.
     */
    private static int firstBytes(InetSocketAddress raft, IssuedCertificate cert) throws Exception {
        SSLContext ssl = SSLContext.getInstance("TLSv1.3");
        ssl.init(new KeyManager[] {new FixedKeyManager(new X509Certificate[] {cert.certificate()}, cert.key())},
                new TrustManager[] {new ManagerPeerTrust(List.of(FABRIC.certificate()))}, null);
        try (SSLSocket socket = (SSLSocket) ssl.getSocketFactory().createSocket(raft.getHostString(), raft.getPort())) {
            socket.setSoTimeout(10_000);
            SSLParameters params = socket.getSSLParameters();
            params.setProtocols(new String[] {"TLSv1.3"});
            params.setApplicationProtocols(new String[] {"h2"});
            socket.setSSLParameters(params);
            socket.startHandshake();
            // TLS 1.3: the server judges the client's certificate after the client's handshake is done
            return socket.getInputStream().read(new byte[64]);
        } catch (SSLException refused) {
            return -1;
        }
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
