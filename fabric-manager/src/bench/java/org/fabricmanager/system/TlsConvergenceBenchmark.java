package org.fabricmanager.system;

import static org.fabricmanager.southbound.RawFrames.readFrame;
import static org.fabricmanager.southbound.RawFrames.send;

import io.netty.handler.ssl.SslContext;
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
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.Security;
import org.fabricmanager.pki.InMemoryHandshake;
import org.fabricmanager.pki.KeyType;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.sim.FabricSimulator;
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
 * time {@code pki issue} takes per switch. Each TLS variant is a TLS engine ({@code security.tlsProvider}, for
 * the daemon and the agents alike) and a key type: {@code openssl} and {@code jdk} with the ECDSA P-256 PKI that
 * {@code pki init} makes, {@code jdk-ed25519} with an Ed25519 one (what earlier releases made); choose them with
 * {@code -Dfm.bench.variants=openssl,jdk,jdk-ed25519}. Last, the CPU one handshake costs each side, both engines
 * driven in memory on this thread (no sockets, no scheduling): what the daemon pays per agent. Run with
 * {@code mvn -B -q -pl fabric-manager -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=TlsConvergenceBenchmark -Dfm.bench=true}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class TlsConvergenceBenchmark {
    private static final int REPEATS = Integer.getInteger("fm.bench.repeats", 5);
    private static final int HANDSHAKES = Integer.getInteger("fm.bench.handshakes", 300);
    private static final String SPEC = "PGFT(3;16,16,16;1,16,16;1,1,1)";
    private static final List<String> VARIANTS = List.of(System.getProperty("fm.bench.variants", "openssl,jdk,jdk-ed25519")
            .split(","));

    /** One way of running the southbound: plaintext ({@code provider == null}) or an engine with a PKI. */
    private record Variant(String name, TlsProvider provider, PkiDirectory pki, Map<Long, TlsMaterial> materials) {
    }

    @Test
    void tlsCost() throws Exception {
        System.out.printf("machine: %d cores, %s %s; load before: %s%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name"), System.getProperty("java.version"), load());
        PgftSpec spec = PgftSpec.parse(SPEC);
        Fabric fabric = PgftGenerator.generate(spec);
        Map<Long, String> switches = new LinkedHashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            switches.put(s.guid(), s.name());
        }
        Map<KeyType, PkiDirectory> pkis = new java.util.EnumMap<>(KeyType.class);
        Map<KeyType, Map<Long, TlsMaterial>> materials = new java.util.EnumMap<>(KeyType.class);
        for (KeyType type : KeyType.values()) {
            PkiDirectory pki = new PkiDirectory(Files.createTempDirectory("fm-bench-pki-"));
            pki.init("bench CA", Duration.ofDays(2), List.of(), List.of(), Duration.ofDays(2), Clock.systemUTC(), type);
            long issue = System.nanoTime();
            materials.put(type, pki.switchMaterials(switches, Duration.ofDays(2), Clock.systemUTC()));
            double issueMs = (System.nanoTime() - issue) / 1e6;
            System.out.printf("%s: issued and loaded %d switch certificates in %.0f ms (%.2f ms each)%n", type.option(),
                    switches.size(), issueMs, issueMs / switches.size());
            pkis.put(type, pki);
        }
        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant("plaintext", null, null, null));
        for (String v : VARIANTS) {
            KeyType type = v.endsWith("-ed25519") ? KeyType.ED25519 : KeyType.ECDSA_P256;
            TlsProvider provider = TlsProvider.parse(v.replace("-ed25519", ""));
            variants.add(new Variant(v + " (" + type.option() + ")", provider, pkis.get(type), materials.get(type)));
        }

        for (Variant v : variants) {
            once(spec, fabric, v); // warm the JIT on every path
        }
        Map<Variant, List<Double>> runs = new LinkedHashMap<>();
        for (int i = 0; i < REPEATS; i++) {
            for (Variant v : variants) {
                runs.computeIfAbsent(v, k -> new ArrayList<>()).add(once(spec, fabric, v));
            }
        }
        double plain = median(runs.get(variants.get(0)));
        for (Map.Entry<Variant, List<Double>> r : runs.entrySet()) {
            print("start-to-converged, " + r.getKey().name(), r.getValue());
            if (r.getKey().provider() != null) {
                System.out.printf("  %s / plaintext (medians): %.3f%n", r.getKey().name(), median(r.getValue()) / plain);
            }
        }
        System.out.printf("load after the start-ups: %s%n", load());

        for (Variant v : variants.subList(1, variants.size())) {
            handshakes(spec, v);
        }
        handshakeCpu(pkis);
        System.out.printf("load after: %s%n", load());
    }

    private static void handshakes(PgftSpec spec, Variant variant) throws Exception {
        PkiDirectory pki = variant.pki();
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
                config = config.withSecurity(Security.pki(pki.path()).withTlsProvider(variant.provider()));
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
                System.out.printf("daemon %s: connect + %sHELLO/HELLO_REPLY, one JDK client after another (client and daemon "
                                + "in this JVM), %d times: median %.2f ms (p10 %.2f, p90 %.2f)%n", variant.name(), switch (mode) {
                            case "full" -> "full TLS 1.3 handshake (both certificates checked) + ";
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

    private static double once(PgftSpec spec, Fabric fabric, Variant variant) throws Exception {
        Path state = Files.createTempDirectory("fm-bench-");
        CountDownLatch converged = new CountDownLatch(1);
        long[] convergedAt = new long[1];
        DaemonConfig config = SystemSupport.config(state, spec);
        if (variant.provider() != null) {
            config = config.withSecurity(Security.pki(variant.pki().path()).withTlsProvider(variant.provider()));
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
        AgentSettings secure = variant.provider() == null ? base : base.withTlsProvider(variant.provider());
        try (FabricSimulator sim = new FabricSimulator(fabric, guid -> variant.materials() == null ? base
                : secure.withTls(variant.materials().get(guid)), null, 2, null, 7)) {
            sim.start();
            if (!converged.await(180, TimeUnit.SECONDS)) {
                throw new AssertionError("no convergence for " + spec + " (" + variant.name() + ")");
            }
            return (convergedAt[0] - start) / 1e6;
        } finally {
            daemon.close();
            delete(state);
        }
    }

    /**
     * CPU of one full handshake for each side (a new client context each time, as an agent's first connection;
     * the daemon's context shared, as in the daemon), the two engines driven in memory on this thread and timed
     * by its CPU clock: what a handshake costs the daemon, without the sockets and the scheduling.
     */
    private static void handshakeCpu(Map<KeyType, PkiDirectory> pkis) throws Exception {
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        String[][] cases = {{"openssl", "openssl", "ECDSA_P256"}, {"jdk", "jdk", "ECDSA_P256"}, {"jdk", "jdk", "ED25519"},
            {"openssl", "jdk", "ECDSA_P256"}};
        for (String[] c : cases) {
            PkiDirectory pki = pkis.get(KeyType.valueOf(c[2]));
            long guid = 0x3000000000000002L;
            pki.issueSwitch(pki.loadCa(Clock.systemUTC()), guid, "bench", Duration.ofDays(1), true);
            TlsMaterial agent = pki.switchMaterial(guid).orElseThrow();
            TlsMaterial daemon = pki.daemonMaterial();
            TlsProvider daemonSide = TlsProvider.parse(c[0]);
            TlsProvider agentSide = TlsProvider.parse(c[1]);
            SslContext server = TlsContexts.server(daemon, daemonSide.engine(daemon));
            long[] daemonNs = new long[HANDSHAKES];
            long[] agentNs = new long[HANDSHAKES];
            for (int i = -HANDSHAKES / 3; i < HANDSHAKES; i++) { // the first third warms the JIT
                long t0 = cpu.getCurrentThreadCpuTime();
                SslContext client = TlsContexts.client(agent, agentSide.engine(agent));
                long contextNs = cpu.getCurrentThreadCpuTime() - t0;
                InMemoryHandshake h = InMemoryHandshake.run(server, client);
                h.release();
                if (h.failure() != null) {
                    throw new AssertionError("handshake failed: " + h.failure(), h.failure());
                }
                if (i >= 0) {
                    daemonNs[i] = h.serverNs();
                    agentNs[i] = h.clientNs() + contextNs;
                }
            }
            Arrays.sort(daemonNs);
            Arrays.sort(agentNs);
            System.out.printf("CPU per full handshake, daemon %s / agent %s, %s keys, %d handshakes in memory: daemon median "
                            + "%.3f ms (p90 %.3f), agent median %.3f ms incl. its context (p90 %.3f)%n", c[0], c[1],
                    KeyType.valueOf(c[2]).option(), HANDSHAKES, daemonNs[HANDSHAKES / 2] / 1e6,
                    daemonNs[HANDSHAKES * 9 / 10] / 1e6, agentNs[HANDSHAKES / 2] / 1e6, agentNs[HANDSHAKES * 9 / 10] / 1e6);
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
