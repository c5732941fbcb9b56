package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.southbound.RawFrames.frame;
import static org.fabricmanager.southbound.RawFrames.lastError;
import static org.fabricmanager.southbound.RawFrames.readFrame;
import static org.fabricmanager.southbound.RawFrames.readUntilClosed;
import static org.fabricmanager.southbound.RawFrames.send;
import static org.fabricmanager.system.SystemSupport.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.Security;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.SouthboundRejections;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session-takeover attacks of issue 12 replayed against a converged daemon that requires mutual
 * TLS, with real certificates on loopback: no certificate, a self-signed certificate naming a real
 * switch, switch A's valid certificate claiming switch B, incarnation 2^64-1 with the switch's own
 * certificate, and a plaintext HELLO. Each is refused and counted, and afterwards every real agent still
 * holds its one session, the routing version is the same and every table is unchanged.
 */
class SouthboundSecurityIT {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,4;1,1)");

    @TempDir
    Path state;
    @TempDir
    Path pkiDir;
    PkiDirectory pki;
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    FabricManagerDaemon daemon;
    FabricSimulator sim;
    Views.Status before;
    Map<Long, int[]> tablesBefore = new HashMap<>();
    long victim = PgftGenerator.switchGuid(1, 0);
    long other = PgftGenerator.switchGuid(1, 1);

    /** The TLS engine of the daemon and the agents; {@link SouthboundSecurityJdkIT} runs every case on the JDK's. */
    TlsProvider provider() {
        return TlsProvider.OPENSSL;
    }

    @BeforeEach
    void converge() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        pki = new PkiDirectory(pkiDir);
        pki.init("test CA", Duration.ofDays(2), List.of(), List.of(), Duration.ofDays(2), Clock.systemUTC());
        Map<Long, String> switches = new LinkedHashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            switches.put(s.guid(), s.name());
        }
        Map<Long, TlsMaterial> materials = pki.switchMaterials(switches, Duration.ofDays(2), Clock.systemUTC());
        String engine = RoutingEngines.names().contains("dmodc") ? "dmodc" : RoutingEngines.names().get(0);
        DaemonConfig config = SystemSupport.config(state, SPEC).withEngine(engine)
                .withSecurity(Security.pki(pkiDir).withTlsProvider(provider()));
        daemon = FabricManagerDaemon.start(config, StartOptions.of(List.of()).registry(registry));
        AgentSettings base = new AgentSettings(new java.net.InetSocketAddress("127.0.0.1",
                daemon.southboundAddress().getPort()), 65_536, 2_000, 10_000, 50, 500).withTlsProvider(provider());
        sim = new FabricSimulator(fabric, guid -> base.withTls(materials.get(guid)), null, 2, null, 7);
        sim.start();
        before = await(daemon, s -> s.state() == DaemonState.CONVERGED, "convergence over TLS");
        for (SwitchAgent a : sim.agents()) {
            tablesBefore.put(a.guid(), daemon.api().lft(a.guid()).get(5, TimeUnit.SECONDS).entries());
        }
    }

    @AfterEach
    void stop() {
        if (sim != null) {
            sim.close();
        }
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    void theFabricConvergesOverMutualTls() throws Exception {
        assertThat(before.switches().connected()).isEqualTo(8);
        assertThat(before.tables().inSync()).isEqualTo(8);
        assertUnaffected();
    }

    @Test
    void aPeerWithoutCertificateFailsTheHandshake() throws Exception {
        assertRefusedInHandshake(null, null);
        assertCounted("handshake", 1);
        assertUnaffected();
    }

    @Test
    void aSelfSignedCertificateNamingARealSwitchFailsTheHandshake() throws Exception {
        CertificateAuthority rogue = CertificateAuthority.create("rogue CA", Duration.ofDays(1), Clock.systemUTC());
        IssuedCertificate forged = rogue.issueSwitch(victim, "s1-0", Duration.ofDays(1));
        assertRefusedInHandshake(List.of(forged.certificate()), forged.key());
        // the forged certificate presented with its own CA in the chain changes nothing: the daemon trusts the fabric CA only
        assertRefusedInHandshake(List.of(forged.certificate(), rogue.certificate()), forged.key());
        assertCounted("handshake", 2);
        assertUnaffected();
    }

    @Test
    void switchAsCertificateCannotSpeakForSwitchB() throws Exception {
        TlsMaterial a = pki.switchMaterial(other).orElseThrow();
        for (long incarnation : new long[]{1, sim.agent(victim).incarnation(), sim.agent(victim).incarnation() + 1}) {
            try (SSLSocket s = TlsPeers.connect(port(), a.chain(), a.key(), a.trusted())) {
                send(s, hello(victim, incarnation));
                ErrorReport e = lastError(readUntilClosed(s));
                assertThat(e.errorCode()).as("incarnation %d", incarnation).contains(ErrorCode.IDENTITY_MISMATCH);
                assertThat(e.message()).contains("HELLO names switch " + Guids.format(victim))
                        .contains("certificate names switch " + Guids.format(other));
            }
        }
        assertCounted("identity", 3);
        assertUnaffected();
    }

    /**
     * Session resumption keeps the HELLO bound to the certificate: the daemon shares its session-ticket keys across
     * restarts and managers, and a resumed TLS 1.3 session skips the check of the agent's chain, so the certificate it
     * reads must be the one of the ticket's full handshake: switch A's resumed session still cannot speak for switch B.
     */
    @Test
    void aResumedSessionOfSwitchACannotSpeakForSwitchB() throws Exception {
        TlsMaterial a = pki.switchMaterial(other).orElseThrow();
        javax.net.ssl.SSLContext context = TlsPeers.context(a.chain(), a.key(), a.trusted());
        double resumedBefore = tlsCompleted("resumed");
        for (int i = 0; i < 3; i++) {
            try (SSLSocket s = TlsPeers.connect(port(), context)) {
                send(s, hello(victim, sim.agent(victim).incarnation() + 1));
                ErrorReport e = lastError(readUntilClosed(s)); // reads the daemon's session tickets too
                assertThat(e.errorCode()).as("connection %d", i).contains(ErrorCode.IDENTITY_MISMATCH);
                assertThat(e.message()).contains("certificate names switch " + Guids.format(other));
            }
        }
        // the second and third connections resumed the session of the first (the JDK client offers its ticket)
        assertThat(tlsCompleted("resumed") - resumedBefore).as("resumed TLS handshakes").isEqualTo(provider()
                == TlsProvider.OPENSSL ? 2 : 0);
        assertCounted("identity", 3);
        assertUnaffected();
    }

    /**
     * A resumed session skips the check of the agent's chain, and a ticket may outlive the certificate it names: the
     * daemon checks the validity period itself and refuses a resumed session whose certificate has expired since.
     */
    @Test
    void aResumedSessionWhoseCertificateHasExpiredSinceIsRefused() throws Exception {
        org.fabricmanager.pki.CertificateAuthority ca = new org.fabricmanager.pki.CertificateAuthority(
                org.fabricmanager.pki.PemFiles.readCertificate(pki.caCertificate()),
                org.fabricmanager.pki.PemFiles.readPrivateKey(pki.caKey(), true), Clock.systemUTC());
        IssuedCertificate brief = ca.issueSwitch(other, "s1-1", Duration.ofSeconds(3));
        javax.net.ssl.SSLContext context = TlsPeers.context(List.of(brief.certificate()), brief.key(),
                List.of(ca.certificate()));
        try (SSLSocket s = TlsPeers.connect(port(), context)) {
            send(s, hello(victim, sim.agent(victim).incarnation() + 1));
            assertThat(lastError(readUntilClosed(s)).errorCode()).contains(ErrorCode.IDENTITY_MISMATCH);
        }
        long expired = brief.certificate().getNotAfter().getTime() + 1_000;
        Await.until("the brief certificate expired", () -> System.currentTimeMillis() > expired);
        double resumedBefore = tlsCompleted("resumed");
        Message answer = null;
        try (SSLSocket s = TlsPeers.connect(port(), context)) {
            send(s, hello(other, sim.agent(other).incarnation() + 1));
            answer = readFrame(s);
        } catch (IOException expected) {
            // closed without a frame
        }
        assertThat(answer).as("nothing answers a resumed session of an expired certificate").isNull();
        if (provider() == TlsProvider.OPENSSL) {
            assertThat(tlsCompleted("resumed") - resumedBefore).as("the session was resumed").isEqualTo(1);
        } // the JDK's engine counts no resumption; whether it resumed or not, the outcome is the same
        assertCounted("handshake", 1);
        assertUnaffected();
    }

    private double tlsCompleted(String kind) {
        var c = registry.find("fabric.southbound.tls.completed").tag("kind", kind).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void incarnationTwoToTheSixtyFourMinusOneIsRefusedEvenWithTheSwitchsOwnCertificate() throws Exception {
        TlsMaterial own = pki.switchMaterial(victim).orElseThrow();
        try (SSLSocket s = TlsPeers.connect(port(), own.chain(), own.key(), own.trusted())) {
            send(s, hello(victim, -1L));
            ErrorReport e = lastError(readUntilClosed(s));
            assertThat(e.errorCode()).contains(ErrorCode.INCARNATION_OUT_OF_RANGE);
            assertThat(e.message()).contains("18446744073709551615");
        }
        assertCounted("incarnation", 1);
        assertUnaffected();
        // the real agent restarting later still gets its session back (no lock-out)
        SwitchAgent real = sim.agent(victim);
        long previous = real.incarnation();
        real.stop().syncUninterruptibly();
        real.start().syncUninterruptibly();
        SystemSupport.awaitTrue(() -> {
            Views.SwitchDetail d = daemon.api().switchDetail(victim).get();
            return d != null && d.connected() && d.incarnation() != null && d.incarnation() > previous && d.inSync();
        }, "the restarted agent holds its session", 30);
    }

    @Test
    void aPlaintextHelloIsToldThatTlsIsRequired() throws Exception {
        try (Socket s = new Socket("127.0.0.1", port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(frame(hello(victim, -1L)));
            ErrorReport e = lastError(readUntilClosed(s));
            assertThat(e.errorCode()).contains(ErrorCode.UNSUPPORTED_VERSION);
            assertThat(e.message()).contains("over TLS only").contains("plaintext HELLO");
        }
        assertCounted("plaintext", 1);
        assertUnaffected();
    }

    @Test
    void theRealSwitchMayReconnectWithItsOwnCertificate() throws Exception {
        // the same GUID, the switch's own certificate, a restart's incarnation: a legitimate takeover
        TlsMaterial own = pki.switchMaterial(victim).orElseThrow();
        long now = System.currentTimeMillis() * 1000;
        try (SSLSocket s = TlsPeers.connect(port(), own.chain(), own.key(), own.trusted())) {
            send(s, hello(victim, now));
            assertThat(readFrame(s)).isInstanceOf(Message.HelloReply.class);
        }
        assertThat(registry.find(SouthboundRejections.METER).counters()).allMatch(c -> c.count() == 0);
    }

    /**
     * A flood of refused connections (issue 12: one WARN per rejected connection wrote 150 MB of logs):
     * 10,000 peers on 4 threads, each sending a plaintext HELLO or bytes that are no TLS record, some TLS
     * handshakes without a certificate, and some authenticated peers whose first frame is not a HELLO. Every one is counted; the log gets a few summary lines (one
     * per 10 s interval at most), not one per peer, and the fabric is untouched.
     */
    @Test
    void tenThousandRefusedConnectionsWriteABoundedNumberOfLogLines() throws Exception {
        ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(
                org.slf4j.Logger.ROOT_LOGGER_NAME);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
                new ch.qos.logback.core.read.ListAppender<>();
        lines.start();
        root.addAppender(lines);
        int peers = 10_000;
        int threads = 4;
        long begin = System.nanoTime();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();
        try {
            List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                done.add(pool.submit(() -> {
                    byte[] plaintext = frame(hello(victim, -1L));
                    byte[] garbage = "GET / HTTP/1.1\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                    for (int i = first; i < peers; i += threads) {
                        try (Socket s = new Socket("127.0.0.1", port())) {
                            s.setSoTimeout(10_000);
                            s.getOutputStream().write(i % 2 == 0 ? plaintext : garbage);
                            readUntilClosed(s);
                        } catch (IOException e) {
                            failures.incrementAndGet(); // a reset instead of a clean close: refused all the same
                        }
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get(10, TimeUnit.MINUTES);
            }
            for (int i = 0; i < 50; i++) {
                assertRefusedInHandshake(null, null);
            }
            // authenticated peers (a certificate of a GUID outside the fabric) whose first frame is no HELLO
            long intruder = 0x3000000000000002L;
            pki.issueSwitch(pki.loadCa(Clock.systemUTC()), intruder, "flooder", Duration.ofDays(1), true);
            TlsMaterial m = pki.switchMaterial(intruder).orElseThrow();
            for (int i = 0; i < 50; i++) {
                try (SSLSocket s = TlsPeers.connect(port(), m.chain(), m.key(), m.trusted())) {
                    s.setSoTimeout(10_000);
                    s.getOutputStream().write(java.nio.ByteBuffer.allocate(9).putInt(5).put((byte) 7).putInt(i).array());
                    readUntilClosed(s);
                } catch (IOException e) {
                    failures.incrementAndGet();
                }
            }
            SystemSupport.awaitTrue(() -> count("plaintext") + count("handshake") >= peers + 50 && count("protocol") >= 50,
                    "every refused peer counted", 30);
        } finally {
            pool.shutdownNow();
            root.detachAppender(lines);
        }
        long elapsedMs = (System.nanoTime() - begin) / 1_000_000;
        List<String> warnings = lines.list.stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN))
                .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList();
        long summaries = warnings.stream().filter(l -> l.startsWith("southbound: refused")).count();
        System.out.printf("%d refused peers in %d ms (%d resets): %d WARN lines, %d of them rejection summaries%n",
                peers + 100, elapsedMs, failures.get(), warnings.size(), summaries);
        assertThat(count("plaintext") + count("handshake")).isEqualTo(peers + 50.0);
        assertThat(count("protocol")).isEqualTo(50.0);
        // at most one summary per 10 s interval, plus the first line and the one that flushes the last burst
        assertThat(summaries).isPositive().isLessThanOrEqualTo(2 + elapsedMs / SouthboundRejections.DEFAULT_INTERVAL_MS);
        assertThat(warnings).as("no per-connection WARN besides the summaries").hasSize((int) summaries);
        assertUnaffected();
    }

    /**
     * Seeded, bounded fuzzing through a real TLS session: an authenticated peer (a certificate of a GUID
     * not in the fabric) sends random bytes, bit-flipped HELLOs, and a valid HELLO followed by random
     * frames. The daemon closes each such session or ignores it; no real switch loses its session and no
     * table changes.
     */
    @Test
    void fuzzedInputOverAuthenticatedTlsSessionsChangesNothing() throws Exception {
        long intruder = 0x3000000000000001L;
        CertificateAuthority ca = pki.loadCa(Clock.systemUTC());
        pki.issueSwitch(ca, intruder, "fuzzer", Duration.ofDays(1), true);
        TlsMaterial m = pki.switchMaterial(intruder).orElseThrow();
        long seed = Long.getLong("fm.fuzz.seed", 20_261_101L);
        int sessions = Integer.getInteger("fm.fuzz.sessions", 120);
        Random r = new Random(seed);
        int closedByDaemon = 0;
        for (int i = 0; i < sessions; i++) {
            byte[] input = fuzzInput(r, intruder);
            try (SSLSocket s = TlsPeers.connect(port(), m.chain(), m.key(), m.trusted())) {
                s.setSoTimeout(300);
                s.getOutputStream().write(input);
                s.getOutputStream().flush();
                try {
                    while (s.getInputStream().read() != -1) {
                        // drain replies until the daemon closes or goes quiet
                    }
                    closedByDaemon++;
                } catch (java.net.SocketTimeoutException quiet) {
                    // the daemon waits for more (a partial frame, a pending handshake): the client leaves
                }
            } catch (IOException e) {
                closedByDaemon++; // reset while writing: the daemon had closed already
            }
        }
        System.out.printf("fuzz: seed %d, %d TLS sessions, %d closed by the daemon%n", seed, sessions, closedByDaemon);
        assertThat(closedByDaemon).as("seed %d: most fuzzed sessions are refused", seed).isPositive();
        await(daemon, st -> st.state() == DaemonState.CONVERGED, "the daemon back at CONVERGED (seed " + seed + ")");
        for (SwitchAgent a : sim.agents()) {
            assertThat(a.state()).as("seed %d: %s", seed, a).isEqualTo(SwitchAgent.State.ACTIVE);
            assertThat(a.handshakes()).as("seed %d: %s kept its session", seed, a).isEqualTo(1);
            assertThat(daemon.api().lft(a.guid()).get(5, TimeUnit.SECONDS).entries()).as("seed %d: %s table", seed, a)
                    .isEqualTo(tablesBefore.get(a.guid()));
        }
    }

    private static byte[] fuzzInput(Random r, long guid) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] hello = frame(hello(guid, System.currentTimeMillis() * 1000));
        switch (r.nextInt(4)) {
            case 0 -> {
                byte[] b = new byte[1 + r.nextInt(2000)];
                r.nextBytes(b);
                out.writeBytes(b);
            }
            case 1 -> {
                for (int k = 1 + r.nextInt(4); k > 0; k--) {
                    hello[r.nextInt(hello.length)] ^= (byte) (1 << r.nextInt(8));
                }
                out.writeBytes(hello);
            }
            case 2 -> {
                out.writeBytes(hello);
                for (int k = 1 + r.nextInt(5); k > 0; k--) {
                    byte[] payload = new byte[r.nextInt(300)];
                    r.nextBytes(payload);
                    java.nio.ByteBuffer f = java.nio.ByteBuffer.allocate(9 + payload.length);
                    f.putInt(5 + payload.length).put((byte) r.nextInt(14)).putInt(r.nextInt()).put(payload);
                    out.writeBytes(f.array());
                }
            }
            default -> {
                java.nio.ByteBuffer f = java.nio.ByteBuffer.allocate(9);
                f.putInt(r.nextInt() | 0x01000000).put((byte) 1).putInt(1);
                out.writeBytes(f.array());
            }
        }
        return out.toByteArray();
    }

    private void assertRefusedInHandshake(List<java.security.cert.X509Certificate> chain, java.security.PrivateKey key)
            throws Exception {
        Message answer = null;
        try (SSLSocket s = TlsPeers.connect(port(), chain, key, List.of(pki.caCertificate().toFile().exists()
                ? org.fabricmanager.pki.PemFiles.readCertificate(pki.caCertificate()) : null))) {
            // in TLS 1.3 the server's verdict on the client's certificate arrives after the client's Finished
            send(s, hello(victim, -1L));
            answer = readFrame(s);
        } catch (IOException expected) {
            // the handshake was refused (an alert, or the connection closed)
        }
        assertThat(answer).as("no frame reaches a peer without a fabric certificate").isNull();
    }

    private void assertCounted(String reason, double expected) throws Exception {
        SystemSupport.awaitTrue(() -> count(reason) >= expected, reason + " rejections counted", 10);
        assertThat(count(reason)).isEqualTo(expected);
    }

    private double count(String reason) {
        var c = registry.find(SouthboundRejections.METER).tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    private void assertUnaffected() throws Exception {
        awaitClosesHandled();
        Views.Status now = daemon.api().status().get();
        assertThat(now.state()).isEqualTo(DaemonState.CONVERGED);
        assertThat(now.routing().version()).isEqualTo(before.routing().version());
        assertThat(now.routing().computations()).isEqualTo(before.routing().computations());
        assertThat(now.switches().connected()).isEqualTo(8);
        assertThat(now.tables().inSync()).isEqualTo(8);
        for (SwitchAgent a : sim.agents()) {
            assertThat(a.state()).isEqualTo(SwitchAgent.State.ACTIVE);
            assertThat(a.handshakes()).as("%s kept its session", a).isEqualTo(1);
            assertThat(daemon.api().lft(a.guid()).get(5, TimeUnit.SECONDS).entries()).as("%s table", a)
                    .isEqualTo(tablesBefore.get(a.guid()));
            assertThat(a.table().version()).isEqualTo(before.routing().version());
        }
    }

    private int port() {
        return daemon.southboundAddress().getPort();
    }

    private static Hello hello(long guid, long incarnation) {
        return new Hello(1, Protocol.MIN_VERSION, Protocol.MAX_VERSION, guid, incarnation, 8, 65_536, 0, 0, TableHash.EMPTY,
                "intruder");
    }
    /**
     * Waits until every connection this test opened besides the 8 agents' has ended and the control thread has
     * handled its close: whatever a close was going to start (a loss judged, a re-route scheduled, a state) has
     * started by then, so the checks that follow cannot pass by looking too early.
     */
    private void awaitClosesHandled() {
        Await.until("every other connection's close handled by the control thread", java.time.Duration.ofSeconds(20), () -> {
            io.micrometer.core.instrument.Counter accepted = daemon.registry()
                    .find(org.fabricmanager.southbound.SouthboundServer.CONNECTIONS_METER).counter();
            return accepted != null && daemon.sessionClosesHandled() >= (long) accepted.count() - 8;
        });
    }
}
