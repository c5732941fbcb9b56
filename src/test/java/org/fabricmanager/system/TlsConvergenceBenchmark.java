package org.fabricmanager.system;

import static org.fabricmanager.southbound.RawFrames.readFrame;
import static org.fabricmanager.southbound.RawFrames.send;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): what mutual TLS costs. Daemon start to CONVERGED at 768
 * switches ({@code PGFT(3;16,16,16;1,16,16;1,1,1)}) with and without TLS, runs interleaved so that the
 * machine's load drifts over both alike; then the cost of one agent's connection (TCP connect, TLS
 * handshake with both certificates checked, HELLO, HELLO_REPLY) against the same without TLS; and the
 * time {@code pki issue} takes per switch. Run with {@code mvn -B -q -pl fabric-manager -am verify
 * -DskipITs -Dsurefire.failIfNoSpecifiedTests=false -Dtest=TlsConvergenceBenchmark -Dfm.bench=true}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class TlsConvergenceBenchmark {
    private static final int REPEATS = Integer.getInteger("fm.bench.repeats", 5);
    private static final int HANDSHAKES = Integer.getInteger("fm.bench.handshakes", 300);
    private static final String SPEC = "PGFT(3;16,16,16;1,16,16;1,1,1)";

    @Test
    void tlsCost() throws Exception {
        System.out.printf("machine: %d cores, %s %s; load before: %s%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name"), System.getProperty("java.version"), load());
        PgftSpec spec = PgftSpec.parse(SPEC);
        Fabric fabric = PgftGenerator.generate(spec);
        Path pkiDir = Files.createTempDirectory("fm-bench-pki-");
        PkiDirectory pki = new PkiDirectory(pkiDir);
        pki.init("bench CA", Duration.ofDays(2), List.of(), List.of(), Duration.ofDays(2), Clock.systemUTC());
        Map<Long, String> switches = new LinkedHashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            switches.put(s.guid(), s.name());
        }
        long issue = System.nanoTime();
        Map<Long, TlsMaterial> materials = pki.switchMaterials(switches, Duration.ofDays(2), Clock.systemUTC());
        double issueMs = (System.nanoTime() - issue) / 1e6;
        System.out.printf("issued and loaded %d switch certificates in %.0f ms (%.2f ms each)%n", switches.size(), issueMs,
                issueMs / switches.size());

        once(spec, fabric, null, null); // warm the JIT on both paths
        once(spec, fabric, pki, materials);
        List<Double> plain = new ArrayList<>();
        List<Double> tls = new ArrayList<>();
        for (int i = 0; i < REPEATS; i++) {
            plain.add(once(spec, fabric, null, null));
            tls.add(once(spec, fabric, pki, materials));
        }
        print("start-to-converged, plaintext", plain);
        print("start-to-converged, mutual TLS", tls);
        System.out.printf("TLS / plaintext (medians): %.3f%n", median(tls) / median(plain));

        handshakes(spec, pki);
        System.out.printf("load after: %s%n", load());
    }

    private static void handshakes(PgftSpec spec, PkiDirectory pki) throws Exception {
        long guid = 0x3000000000000001L;
        pki.issueSwitch(pki.loadCa(Clock.systemUTC()), guid, "bench", Duration.ofDays(1), true);
        TlsMaterial m = pki.switchMaterial(guid).orElseThrow();
        // plaintext; TLS with a full handshake (a new client context each time, as an agent's first connection);
        // TLS resumed (one client context: TLS 1.3 session tickets, as an agent reconnecting)
        for (String mode : new String[]{"plain", "full", "resumed"}) {
            boolean secure = !mode.equals("plain");
            Path state = Files.createTempDirectory("fm-bench-");
            DaemonConfig config = SystemSupport.config(state, spec);
            if (secure) {
                config = config.withSecurity(DaemonConfig.Security.pki(pki.path()));
            }
            FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of());
            try {
                int port = daemon.southboundAddress().getPort();
                double[] ms = new double[HANDSHAKES];
                javax.net.ssl.SSLContext shared = TlsPeers.context(m.chain(), m.key(), m.trusted());
                for (int i = -HANDSHAKES / 3; i < HANDSHAKES; i++) { // the first third warms the JIT
                    javax.net.ssl.SSLContext client = mode.equals("full") ? TlsPeers.context(m.chain(), m.key(), m.trusted())
                            : shared;
                    long t = System.nanoTime();
                    Socket s = secure ? TlsPeers.connect(port, client) : plainSocket(port);
                    try (s) {
                        send(s, new Message.Hello(1, Protocol.MIN_VERSION, Protocol.MAX_VERSION, guid,
                                System.currentTimeMillis() * 1000 + i + HANDSHAKES, 8, 65_536, 0, 0, TableHash.EMPTY, "bench"));
                        if (!(readFrame(s) instanceof Message.HelloReply)) {
                            throw new AssertionError("no HELLO_REPLY");
                        }
                    }
                    if (i >= 0) {
                        ms[i] = (System.nanoTime() - t) / 1e6;
                    }
                }
                Arrays.sort(ms);
                System.out.printf("connect + %sHELLO/HELLO_REPLY, one agent after another (client and daemon in this JVM), "
                                + "%d times: median %.2f ms (p10 %.2f, p90 %.2f)%n", switch (mode) {
                            case "full" -> "full TLS 1.3 handshake (Ed25519, both certificates checked) + ";
                            case "resumed" -> "resumed TLS 1.3 handshake (session ticket) + ";
                            default -> "";
                        }, HANDSHAKES, ms[ms.length / 2], ms[ms.length / 10], ms[ms.length * 9 / 10]);
            } finally {
                daemon.close();
                delete(state);
            }
        }
    }

    private static Socket plainSocket(int port) throws Exception {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(10_000);
        return s;
    }

    private static double once(PgftSpec spec, Fabric fabric, PkiDirectory pki, Map<Long, TlsMaterial> materials)
            throws Exception {
        Path state = Files.createTempDirectory("fm-bench-");
        CountDownLatch converged = new CountDownLatch(1);
        long[] convergedAt = new long[1];
        DaemonConfig config = SystemSupport.config(state, spec);
        if (pki != null) {
            config = config.withSecurity(DaemonConfig.Security.pki(pki.path()));
        }
        long start = System.nanoTime();
        FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of(m -> {
            if (m.kind() == Milestone.Kind.CONVERGED) {
                convergedAt[0] = System.nanoTime();
                converged.countDown();
            }
        }));
        AgentSettings base = new AgentSettings(new InetSocketAddress("127.0.0.1", daemon.southboundAddress().getPort()),
                65_536, 2_000, 10_000, 50, 500);
        try (FabricSimulator sim = new FabricSimulator(fabric, guid -> materials == null ? base
                : base.withTls(materials.get(guid)), null, 2, null, 7)) {
            sim.start();
            if (!converged.await(180, TimeUnit.SECONDS)) {
                throw new AssertionError("no convergence for " + spec + (pki == null ? "" : " over TLS"));
            }
            return (convergedAt[0] - start) / 1e6;
        } finally {
            daemon.close();
            delete(state);
        }
    }

    private static void print(String what, List<Double> runs) {
        double[] v = runs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        System.out.printf("%s, %s: median %.0f ms (min %.0f, max %.0f) over %d; runs %s%n", SPEC, what, v[v.length / 2],
                v[0], v[v.length - 1], v.length, Arrays.toString(Arrays.stream(v).map(Math::rint).toArray()));
    }

    private static double median(List<Double> runs) {
        double[] v = runs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v[v.length / 2];
    }

    private static void delete(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
