package org.fabricmanager.system;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.pki.KeyType;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Benchmark (not part of the test suite): what mutual TLS adds to start-up in the production shape. A
 * {@code run} process of the packaged jar and {@code simulate} processes (with {@code --pki} for TLS, every
 * agent its own certificate), plaintext and TLS runs interleaved, each with a fresh state directory (so
 * that nothing is reused from a previous run) and fresh processes. Measures the daemon's STARTED to
 * CONVERGED (from its events), and the CPU the daemon and the simulators spent until then, whose TLS
 * minus plaintext difference per switch is the handshake cost per agent, and the daemon's count of accepted
 * connections, timed-out and turned-away ones ({@code /metrics}). The TLS runs are one per TLS engine of
 * {@code -Dfm.bench.variants} (default {@code openssl,jdk}: {@code security.tlsProvider} and {@code simulate
 * --tls-provider} alike, with the ECDSA P-256 PKI of {@code pki init}; {@code jdk-ed25519} adds the JDK with an
 * Ed25519 PKI, what earlier releases made). Run after packaging:
 * <pre>
 * mvn -B -o -pl fabric-manager -am verify -DskipTests -Dit.test=TlsProductionShapeBenchmark -Dfm.bench=true \
 *     -Dfailsafe.failIfNoSpecifiedTests=false [-Dfm.bench.spec=...] [-Dfm.bench.repeats=3]
 * </pre>
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class TlsProductionShapeBenchmark {
    private static final String SPEC = System.getProperty("fm.bench.spec", "PGFT(3;16,16,16;1,16,16;1,1,1)");
    private static final int SIMULATORS = Integer.getInteger("fm.bench.simulators", 2);
    private static final int REPEATS = Integer.getInteger("fm.bench.repeats", 3);
    private static final List<String> VARIANTS = List.of(System.getProperty("fm.bench.variants", "openssl,jdk").split(","));
    private static final String PLAIN = "plain";
    /** Prints where each process's CPU went until convergence, by thread (the JIT, the TLS pool, the I/O threads). */
    private static final boolean THREADS = Boolean.getBoolean("fm.bench.threads");
    /** JVM options of the daemon and of the simulators (e.g. a Flight Recorder recording of the compilations). */
    private static final String DAEMON_JVM = System.getProperty("fm.bench.daemonJvm", "-Xmx2g");
    private static final String SIM_JVM = System.getProperty("fm.bench.simJvm", "-Xmx1g");

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.NEVER)
    Path work;

    /** One start: daemon STARTED to CONVERGED, and CPU seconds spent by the daemon and the simulators until then. */
    record Start(String mode, long startToConvergedMs, double daemonCpuS, double simulatorCpuS, String load,
                 double connections, double timeouts, double busy) {
    }

    @Test
    void tlsCostAtStartInTheProductionShape() throws Exception {
        PgftSpec spec = PgftSpec.parse(SPEC);
        Fabric fabric = PgftGenerator.generate(spec);
        Map<Long, String> switches = new LinkedHashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            switches.put(s.guid(), s.name());
        }
        Map<KeyType, Path> pkiDirs = new java.util.EnumMap<>(KeyType.class);
        for (KeyType type : KeyType.values()) {
            Path pkiDir = work.resolve("pki-" + type.option());
            PkiDirectory pki = new PkiDirectory(pkiDir);
            pki.init("bench CA", Duration.ofDays(2), List.of(), List.of(), Duration.ofDays(2), Clock.systemUTC(), type);
            pki.switchMaterials(switches, Duration.ofDays(2), Clock.systemUTC()); // issued once, before any timing
            pkiDirs.put(type, pkiDir);
        }
        List<String> modes = new ArrayList<>(List.of(PLAIN));
        modes.addAll(VARIANTS);
        System.out.printf("TLS in the production shape: %s, %d switches, %d simulate processes, %d repeats; work in %s%n",
                SPEC, fabric.switches().size(), SIMULATORS, REPEATS, work);
        System.out.printf("machine: %d cores; load before: %s%n", Runtime.getRuntime().availableProcessors(), load());

        List<List<String>> parts = FabricProcesses.split(fabric, SIMULATORS);
        List<Start> starts = new ArrayList<>();
        // a warm-up of each first (page cache, JIT of the JDK's TLS in a fresh JVM is part of every run anyway)
        for (int round = -1; round < REPEATS; round++) {
            for (String mode : modes) {
                Start s = start(round, mode, fabric, parts,
                        pkiDirs.get(mode.endsWith("-ed25519") ? KeyType.ED25519 : KeyType.ECDSA_P256));
                System.out.printf("%s %s: %,d ms STARTED->CONVERGED, daemon %.2f CPU-s, simulators %.2f CPU-s, "
                                + "%.0f connections, %.0f timeouts, %.0f busy, load %s%n",
                        round < 0 ? "warm-up" : "run " + (round + 1), mode, s.startToConvergedMs(),
                        s.daemonCpuS(), s.simulatorCpuS(), s.connections(), s.timeouts(), s.busy(), s.load());
                if (round >= 0) {
                    starts.add(s);
                }
            }
        }
        for (String mode : modes) {
            summary(starts, mode);
        }
        double plainMs = median(starts, PLAIN, Start::startToConvergedMs);
        int n = fabric.switches().size();
        for (String mode : VARIANTS) {
            System.out.printf("%s / plain start-to-CONVERGED (medians): %.2f; handshake cost per agent (median CPU "
                            + "difference / %d switches): daemon %.2f ms, agent side %.2f ms%n", mode,
                    median(starts, mode, Start::startToConvergedMs) / plainMs, n,
                    1000 * (median(starts, mode, Start::daemonCpuS) - median(starts, PLAIN, Start::daemonCpuS)) / n,
                    1000 * (median(starts, mode, Start::simulatorCpuS) - median(starts, PLAIN, Start::simulatorCpuS)) / n);
        }
        System.out.printf("load after: %s%n", load());
    }

    private Start start(int round, String mode, Fabric fabric, List<List<String>> parts, Path pkiDir) throws Exception {
        boolean tls = !mode.equals(PLAIN);
        String provider = mode.replace("-ed25519", "");
        Path dir = work.resolve(mode + "-" + (round + 1));
        Files.createDirectories(dir);
        Path config = dir.resolve("fabric-manager.yaml");
        Files.writeString(config, config(SPEC, dir.resolve("state"), tls ? "  pkiDirectory: \"" + pkiDir + "\"\n  tlsProvider: "
                + provider : "  insecure: true"));
        try (FabricProcesses fp = new FabricProcesses(dir)) {
            fp.startDaemon(config, DAEMON_JVM.replace("{run}", dir.getFileName().toString()));
            long startedFallback = System.currentTimeMillis(); // if STARTED has left the event buffer (a storm's events)
            List<FabricProcesses.Simulator> sims = new ArrayList<>();
            for (int i = 0; i < parts.size(); i++) {
                List<String> args = new ArrayList<>(List.of("--pgft", SPEC, "--only", String.join(",", parts.get(i))));
                if (tls) {
                    args.addAll(List.of("--pki", pkiDir.toString(), "--tls-provider", provider));
                }
                sims.add(fp.startSimulator("sim-" + i, SIM_JVM.replace("{run}", dir.getFileName() + "-sim-" + i), args));
            }
            fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED")
                    && s.at("/switches/connected").asInt() == fabric.switches().size(), "convergence", 900);
            double daemonCpu = FabricProcesses.cpuSeconds(fp.daemon().pid());
            double simCpu = 0;
            Map<String, Double> simThreads = new java.util.TreeMap<>();
            for (FabricProcesses.Simulator s : sims) {
                simCpu += FabricProcesses.cpuSeconds(s.pid());
                if (THREADS) {
                    FabricProcesses.threadCpuSeconds(s.pid()).forEach((k, v) -> simThreads.merge(k, v, Double::sum));
                }
            }
            if (THREADS) {
                System.out.printf("  %s daemon threads (CPU-s): %s%n", mode,
                        FabricProcesses.topThreads(FabricProcesses.threadCpuSeconds(fp.daemon().pid())));
                System.out.printf("  %s simulators' threads (CPU-s): %s%n", mode, FabricProcesses.topThreads(simThreads));
            }
            List<JsonNode> events = fp.events(0);
            String metrics = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(fp.restUrl() + "/metrics")).timeout(Duration.ofSeconds(30)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            long started = time(events, "STARTED");
            return new Start(mode, time(events, "CONVERGED") - (started > 0 ? started : startedFallback), daemonCpu, simCpu,
                    load(),
                    TlsAdmissionIT.value(metrics, "fabric_southbound_connections_total", ""),
                    TlsAdmissionIT.value(metrics, "fabric_southbound_rejected_total", "reason=\"timeout\""),
                    TlsAdmissionIT.value(metrics, "fabric_southbound_rejected_total", "reason=\"busy\""));
        }
    }

    /** The daemon's configuration of these benchmarks: {@code security} is the section's lines, indented. */
    static String config(String spec, Path state, String security) {
        return """
                fabric:
                  expectedPgft: "%s"
                discovery:
                  settleMs: 1000
                  maxWaitMs: 120000
                state:
                  directory: "%s"
                security:
                %s
                """.formatted(spec, state, security);
    }

    private static void summary(List<Start> starts, String mode) {
        List<Long> ms = starts.stream().filter(s -> s.mode().equals(mode)).map(Start::startToConvergedMs).sorted().toList();
        System.out.printf("%s: start-to-CONVERGED median %,d ms (min %,d, max %,d) over %d runs%n", mode,
                ms.get(ms.size() / 2), ms.get(0), ms.get(ms.size() - 1), ms.size());
    }

    private static double median(List<Start> starts, String mode, java.util.function.ToDoubleFunction<Start> f) {
        double[] v = starts.stream().filter(s -> s.mode().equals(mode)).mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static long time(List<JsonNode> events, String kind) {
        long t = -1;
        for (JsonNode e : events) {
            if (e.path("kind").asText().equals(kind)) {
                return e.path("timeMillis").asLong();
            }
        }
        return t;
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
