package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.nio.NioEventLoopGroup;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.fabricmanager.agent.AgentDependencies;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The daemon's pacing of TLS handshakes on loopback, with small configured timeouts standing in for the
 * production ones: a connection's HELLO timer starts when its TLS handshake completes, not at the TCP
 * connect, so waiting in the admission queue costs it nothing; a full queue refuses at once and counts it;
 * and a connection closed before its handshake gets no plaintext byte.
 */
class TlsAdmissionTest {
    private static final long GUID = 0x10L;
    /** The first 5 bytes of a TLS ClientHello record: enough for the daemon to hand the connection to TLS. */
    private static final byte[] TLS_RECORD_HEADER = {0x16, 0x03, 0x01, 0x00, (byte) 0x80};

    private final CertificateAuthority ca = CertificateAuthority.create("t", Duration.ofDays(1), Clock.systemUTC());
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private SouthboundServer server;
    private InetSocketAddress address;

    private final SouthboundListener listener = new SouthboundListener() {
        @Override
        public void helloReceived(SwitchSession session, Hello hello) {
            events.add("hello " + hello.name());
            session.acceptHello(42);
        }

        @Override
        public void portInfoReceived(SwitchSession session, PortInfo info) {
            events.add("ports " + info.ports().size());
            session.acknowledge(info.txid(), MessageType.PORT_INFO);
        }

        @Override
        public void portStatusReceived(SwitchSession session, PortStatus status) {
        }

        @Override
        public void sessionClosed(SwitchSession session, String reason) {
            if (session.guid() == GUID) {
                events.add("closed " + reason);
            }
        }
    };

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** A secure server whose HELLO timer is {@code helloTimeoutMs} and whose handshakes are paced by {@code limits}. */
    private void startServer(int helloTimeoutMs, TlsAdmissionLimits limits) throws Exception {
        IssuedCertificate daemon = ca.issueDaemon(List.of(), List.of(), Duration.ofDays(1));
        TlsMaterial material = new TlsMaterial(List.of(daemon.certificate()), daemon.key(), List.of(ca.certificate()));
        SouthboundSettings settings = new SouthboundSettings("127.0.0.1", 0, 4096, helloTimeoutMs, 200, 5_000, 1)
                .withTls(TlsContexts.server(material, TlsProvider.AUTO.engine(material)))
                .withTlsAdmission(limits);
        server = new SouthboundServer(settings, listener, registry);
        address = server.start();
    }

    private double rejected(Rejection reason) {
        var c = registry.find(SouthboundRejections.METER).tag("reason", reason.tag()).counter();
        return c == null ? 0 : c.count();
    }

    private double connections() {
        return registry.get(SouthboundServer.CONNECTIONS_METER).counter().count();
    }

    /** A peer that starts a TLS handshake and goes silent: it holds a handshake slot until the handshake timeout. */
    private Socket silentTlsPeer() throws IOException {
        return silentTlsPeer(InetAddress.getLoopbackAddress());
    }

    /** {@link #silentTlsPeer()} from {@code local} (another loopback address is another peer). */
    private Socket silentTlsPeer(InetAddress local) throws IOException {
        Socket s = new Socket(address.getAddress(), address.getPort(), local, 0);
        OutputStream out = s.getOutputStream();
        out.write(TLS_RECORD_HEADER);
        out.flush();
        return s;
    }

    private static void await(BooleanSupplier condition, String what) {
        Await.until(what, java.time.Duration.ofSeconds(20), condition);
    }

    /** Every byte the daemon sends until it closes the connection; fails if it keeps it open past the socket timeout. */
    private static byte[] readUntilClosed(Socket s, int timeoutMs) throws IOException {
        s.setSoTimeout(timeoutMs);
        InputStream in = s.getInputStream();
        return in.readAllBytes();
    }

    @Test
    void aHandshakeThatWaitedLongerThanTheHelloTimeoutInTheQueueStillCompletes() throws Exception {
        // one handshake at once; the slot's holder is timed out after 4.5 s, three times the HELLO timeout (which
        // must still leave a loaded host time for HELLO to PORT_INFO)
        startServer(1_500, new TlsAdmissionLimits(1, 8, 30_000, 4_500));
        try (Socket blocker = silentTlsPeer()) {
            await(() -> server.tlsHandshakesActive() == 1, "the blocker to hold the only slot");
            IssuedCertificate own = ca.issueSwitch(GUID, "s1", Duration.ofDays(1));
            AgentSettings settings = new AgentSettings(address, 4096, 2_000, 2_000, 20, 200)
                    .withTls(new TlsMaterial(List.of(own.certificate()), own.key(), List.of(ca.certificate())));
            SwitchAgent agent = new SwitchAgent(GUID, "s1", 4, List.of(), settings, new AgentDependencies(group.next(), null, new Random(1)));
            long start = System.nanoTime();
            agent.start().syncUninterruptibly();
            try {
                assertThat(events.poll(30, TimeUnit.SECONDS)).isEqualTo("hello s1");
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("ports 4");
                assertThat(waitedMs).as("the agent waited for the blocker's slot, longer than the HELLO timeout")
                        .isGreaterThan(3_000);
                assertThat(agent.handshakes()).isEqualTo(1);
                assertThat(connections()).as("the blocker and one agent connection, no retry").isEqualTo(2.0);
                assertThat(rejected(Rejection.TIMEOUT)).as("the blocker only").isEqualTo(1.0);
                assertThat(readUntilClosed(blocker, 10_000)).as("nothing for a peer that never finished TLS").isEmpty();
            } finally {
                agent.stop().syncUninterruptibly();
            }
        }
    }

    /** An agent of switch {@link #GUID} on this server, started. */
    private SwitchAgent agent() {
        IssuedCertificate own = ca.issueSwitch(GUID, "s1", Duration.ofDays(1));
        AgentSettings settings = new AgentSettings(address, 4096, 2_000, 2_000, 20, 200)
                .withTls(new TlsMaterial(List.of(own.certificate()), own.key(), List.of(ca.certificate())));
        SwitchAgent agent = new SwitchAgent(GUID, "s1", 4, List.of(), settings,
                new AgentDependencies(group.next(), null, new Random(1)));
        agent.start().syncUninterruptibly();
        return agent;
    }

    @Test
    void connectionsThatSendNothingHoldNoSlotAndAreClosedAfterTheFirstByteTimeout() throws Exception {
        // one slot, a handshake timeout of a minute: a silent connection holding the slot would lock the agent out
        TlsAdmissionLimits limits = new TlsAdmissionLimits(1, 8, 30_000, 60_000);
        startServer(10_000, limits);
        List<Socket> idle = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 50; i++) {
                idle.add(new Socket(address.getAddress(), address.getPort()));
            }
            await(() -> connections() == 50.0, "the 50 idle connections accepted");
            SwitchAgent agent = agent();
            try {
                assertThat(events.poll(30, TimeUnit.SECONDS)).as("the agent gets in past 50 idle connections")
                        .isEqualTo("hello s1");
                assertThat(server.tlsHandshakesWaiting()).as("idle connections never wait for a slot").isZero();
            } finally {
                agent.stop().syncUninterruptibly();
            }
            for (Socket s : idle) {
                assertThat(readUntilClosed(s, 15_000)).as("closed, unanswered, after %d ms", limits.firstByteMs())
                        .isEmpty();
            }
            await(() -> rejected(Rejection.TIMEOUT) == 50.0, "each idle connection counted as a timeout");
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    @Test
    void onePeerAddressHoldsAtMostAQuarterOfTheSlots() throws Exception {
        TlsAdmissionLimits limits = new TlsAdmissionLimits(4, 64, 30_000, 60_000);
        startServer(10_000, limits);
        InetAddress other = InetAddress.getByName("127.0.0.2");
        List<Socket> silent = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                silent.add(silentTlsPeer(other));
            }
            await(() -> server.tlsHandshakesActive() == limits.perPeer()
                    && server.tlsHandshakesWaiting() == 8 - limits.perPeer(), "127.0.0.2 at its bound, the rest waiting");
            SwitchAgent agent = agent();
            try {
                assertThat(events.poll(30, TimeUnit.SECONDS)).as("an agent from 127.0.0.1 gets a slot")
                        .isEqualTo("hello s1");
            } finally {
                agent.stop().syncUninterruptibly();
            }
            assertThat(server.tlsHandshakesWaiting()).as("127.0.0.2's connections still wait their turn")
                    .isEqualTo(8 - limits.perPeer());
        } finally {
            for (Socket s : silent) {
                s.close();
            }
        }
    }

    /** A certificate of the fabric CA naming switch {@link #GUID}, with the given constraints and key purposes. */
    private IssuedCertificate oddSwitchCertificate(boolean isCa, org.bouncycastle.asn1.x509.KeyPurposeId... purposes)
            throws Exception {
        java.security.KeyPair pair = java.security.KeyPairGenerator.getInstance("EC").generateKeyPair();
        var b = new org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder(ca.certificate(), java.math.BigInteger.TEN,
                new java.util.Date(System.currentTimeMillis() - 60_000), new java.util.Date(System.currentTimeMillis() + 3_600_000),
                new org.bouncycastle.asn1.x500.X500Name("CN=odd"), pair.getPublic())
                .addExtension(org.bouncycastle.asn1.x509.Extension.basicConstraints, true,
                        new org.bouncycastle.asn1.x509.BasicConstraints(isCa))
                .addExtension(org.bouncycastle.asn1.x509.Extension.subjectAlternativeName, false,
                        new org.bouncycastle.asn1.x509.GeneralNames(new org.bouncycastle.asn1.x509.GeneralName(
                                org.bouncycastle.asn1.x509.GeneralName.uniformResourceIdentifier,
                                org.fabricmanager.pki.FabricIdentity.switchUri(GUID))));
        if (purposes.length > 0) {
            b.addExtension(org.bouncycastle.asn1.x509.Extension.extendedKeyUsage, false,
                    new org.bouncycastle.asn1.x509.ExtendedKeyUsage(purposes));
        }
        var signer = new org.bouncycastle.operator.jcajce.JcaContentSignerBuilder(
                "EC".equals(ca.key().getAlgorithm()) ? "SHA256withECDSA" : "SHA256withRSA").build(ca.key());
        return new IssuedCertificate(new org.bouncycastle.cert.jcajce.JcaX509CertificateConverter()
                .getCertificate(b.build(signer)), pair.getPrivate());
    }

    @Test
    void fabricCertificatesWithoutClientAuthOrWithCaTrueAreNoSwitchCertificates() throws Exception {
        startServer(10_000, new TlsAdmissionLimits(4, 8, 30_000, 10_000));
        List<IssuedCertificate> odd = List.of(oddSwitchCertificate(false),
                oddSwitchCertificate(true, org.bouncycastle.asn1.x509.KeyPurposeId.id_kp_clientAuth));
        for (IssuedCertificate c : odd) {
            assertThat(org.fabricmanager.pki.FabricIdentity.switchCertificateProblem(c.certificate())).isNotNull();
        }
        assertThat(org.fabricmanager.pki.FabricIdentity.switchCertificateProblem(
                ca.issueSwitch(GUID, "s1", Duration.ofDays(1)).certificate())).as("one pki issues").isNull();
        for (int i = 0; i < odd.size(); i++) {
            AgentSettings settings = new AgentSettings(address, 4096, 2_000, 2_000, 20, 200)
                    .withTls(new TlsMaterial(List.of(odd.get(i).certificate()), odd.get(i).key(),
                            List.of(ca.certificate())));
            SwitchAgent agent = new SwitchAgent(GUID, "s1", 4, List.of(), settings,
                    new AgentDependencies(group.next(), null, new Random(1)));
            agent.start().syncUninterruptibly();
            try {
                double before = rejected(Rejection.HANDSHAKE);
                await(() -> rejected(Rejection.HANDSHAKE) > before, "certificate " + i + " refused");
                assertThat(events).as("no HELLO reached the daemon with certificate %d", i).doesNotContain("hello s1");
            } finally {
                agent.stop().syncUninterruptibly();
            }
        }
    }

    @Test
    void aFullQueueRefusesAtOnceAndCountsIt() throws Exception {
        startServer(10_000, new TlsAdmissionLimits(1, 1, 60_000, 60_000));
        try (Socket holder = silentTlsPeer(); Socket queued = silentTlsPeer()) {
            await(() -> server.tlsHandshakesActive() == 1 && server.tlsHandshakesWaiting() == 1, "one active, one waiting");
            try (Socket refused = silentTlsPeer()) {
                long start = System.nanoTime();
                // closed long before any of the 60 s timeouts, unread and without a byte
                assertThat(readUntilClosed(refused, 15_000)).isEmpty();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(15_000);
            }
            assertThat(rejected(Rejection.BUSY)).isEqualTo(1.0);
            assertThat(server.rejections().count(Rejection.BUSY)).isEqualTo(1);
            assertThat(server.tlsHandshakesWaiting()).as("the queued one keeps its place").isEqualTo(1);
            assertThat(rejected(Rejection.TIMEOUT) + rejected(Rejection.HANDSHAKE)).isZero();
        }
    }

    /** Whether the daemon keeps {@code s} open without sending anything (a read times out rather than ends). */
    private static boolean openAndSilent(Socket s) throws IOException {
        s.setSoTimeout(200);
        try {
            s.getInputStream().read();
            return false;
        } catch (java.net.SocketTimeoutException open) {
            return true;
        }
    }

    @Test
    void oneAddressFillingTheQueueGivesWayToAnotherAddressButKeepsItsShare() throws Exception {
        // one slot, a queue of 8 (a share of 2): 127.0.0.1 holds the slot and fills the whole queue, as a simulator
        // of many switches behind one address may when nobody else waits
        TlsAdmissionLimits limits = new TlsAdmissionLimits(1, 8, 60_000, 60_000);
        startServer(10_000, limits);
        InetAddress other = InetAddress.getByName("127.0.0.2");
        List<Socket> heavy = new java.util.ArrayList<>();
        List<Socket> light = new java.util.ArrayList<>();
        try {
            heavy.add(silentTlsPeer());
            await(() -> server.tlsHandshakesActive() == 1, "127.0.0.1 to hold the slot");
            for (int i = 0; i < 8; i++) {
                heavy.add(silentTlsPeer());
                int queued = i + 1;
                await(() -> server.tlsHandshakesWaiting() == queued, queued + " of 127.0.0.1's connections waiting");
            }
            assertThat(rejected(Rejection.BUSY)).as("a full queue of one address, nobody refused").isZero();
            // 127.0.0.2 comes: each of its first two connections takes the place of 127.0.0.1's latest waiting one
            for (int i = 0; i < limits.queueShare(); i++) {
                light.add(silentTlsPeer(other));
                Socket displaced = heavy.get(heavy.size() - 1 - i);
                assertThat(readUntilClosed(displaced, 15_000)).as("127.0.0.1's latest waiting, closed unread").isEmpty();
            }
            await(() -> rejected(Rejection.BUSY) == limits.queueShare(), "the displaced counted as busy");
            assertThat(server.tlsHandshakesWaiting()).as("the queue stays full").isEqualTo(limits.queueLength());
            // 127.0.0.2 now holds its share: its next connection is refused, and 127.0.0.1's keep their places
            try (Socket beyond = silentTlsPeer(other)) {
                assertThat(readUntilClosed(beyond, 15_000)).isEmpty();
            }
            await(() -> rejected(Rejection.BUSY) == limits.queueShare() + 1, "the one beyond 127.0.0.2's share refused");
            assertThat(server.tlsHandshakesWaiting()).isEqualTo(limits.queueLength());
            for (Socket s : light) {
                assertThat(openAndSilent(s)).as("127.0.0.2's connections still wait").isTrue();
            }
        } finally {
            for (Socket s : heavy) {
                s.close();
            }
            for (Socket s : light) {
                s.close();
            }
        }
    }

    @Test
    void aConnectionWhoseTurnComesTooLateIsClosedUnreadAsBusy() throws Exception {
        startServer(10_000, new TlsAdmissionLimits(1, 4, 200, 1_000));
        try (Socket holder = silentTlsPeer()) {
            await(() -> server.tlsHandshakesActive() == 1, "the holder to take the slot");
            try (Socket late = silentTlsPeer()) {
                // its turn comes when the holder times out (1 s), past its 200 ms of allowed waiting
                assertThat(readUntilClosed(late, 15_000)).isEmpty();
            }
            await(() -> rejected(Rejection.BUSY) == 1.0, "the late one counted as busy");
            await(() -> server.tlsHandshakesActive() == 0, "the slot given back");
        }
    }

    @Test
    void noPlaintextByteIsWrittenOnATlsConnectionClosedBeforeItsHandshake() throws Exception {
        // the HELLO timeout (100 ms) is shorter than the TLS one (800 ms): before the fix, it fired first and
        // wrote its ERROR HANDSHAKE_TIMEOUT in plaintext into what the peer reads as a TLS connection
        startServer(100, new TlsAdmissionLimits(1, 4, 60_000, 800));
        try (Socket silent = new Socket(address.getAddress(), address.getPort())) {
            assertThat(readUntilClosed(silent, 15_000)).as("bytes written to a peer that never started TLS").isEmpty();
        }
        await(() -> rejected(Rejection.TIMEOUT) == 1.0, "the silent peer counted as a timeout");
        assertThat(rejected(Rejection.PROTOCOL) + rejected(Rejection.HANDSHAKE)).as("counted once").isZero();
    }

    @Test
    void aDaemonStoppingWritesNoPlaintextToConnectionsWaitingForTls() throws Exception {
        startServer(10_000, new TlsAdmissionLimits(1, 4, 60_000, 60_000));
        Socket holder = silentTlsPeer();
        Socket queued = silentTlsPeer();
        try (holder; queued) {
            await(() -> server.tlsHandshakesActive() == 1 && server.tlsHandshakesWaiting() == 1, "one active, one waiting");
            server.close(); // tells every session SHUTTING_DOWN: only over TLS, so to these two nothing
            server = null;
            assertThat(readUntilClosed(queued, 15_000)).as("bytes to the queued connection").isEmpty();
            byte[] toHolder = readUntilClosed(holder, 15_000);
            // at most a TLS alert record (content type 21) from the TLS engine, never a frame
            if (toHolder.length > 0) {
                assertThat(toHolder[0]).as("a TLS record, not a plaintext frame").isEqualTo((byte) 21);
            }
        }
    }
}
