package org.fabricmanager.system;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Benchmark (not part of the test suite): a single daemon restarted under mutual TLS (BoringSSL, the ECDSA P-256 PKI
 * of {@code pki init}) while its agents keep running, in the production shape ({@code run} and {@code simulate}
 * processes of the packaged jar). Alternately the daemon restarts with its {@code ticket-keys} ({@code kept}: agents
 * resume their sessions) and without ({@code new-keys}: the file deleted before the start, so every agent's ticket is
 * useless and it makes a full handshake, as every restart did before the keys were kept). Measures the restarted
 * daemon's STARTED to CONVERGED, its CPU until then, and its full and resumed handshakes.
 * <pre>
 * mvn -B -o verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
 *     -Dit.test=TlsRestartBenchmark -Dfm.bench=true [-Dfm.bench.spec=...] [-Dfm.bench.repeats=4]
 * </pre>
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class TlsRestartBenchmark {
    private static final String SPEC = System.getProperty("fm.bench.spec", "PGFT(3;16,16,16;1,16,16;1,1,1)");
    private static final int SIMULATORS = Integer.getInteger("fm.bench.simulators", 2);
    private static final int REPEATS = Integer.getInteger("fm.bench.repeats", 4);
    /**
     * The restarts made: {@code kept} and {@code new-keys} (TLS, by default both), or {@code plain} (the same daemon and
     * agents in plaintext, {@code security.insecure}: what a restart costs without TLS).
     */
    private static final List<String> MODES = List.of(System.getProperty("fm.bench.modes", "kept,new-keys").split(","));

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.NEVER)
    Path work;

    record Restart(String mode, long startToConvergedMs, double daemonCpuS, double full, double resumed, String load) {
    }

    @Test
    void restartWithAndWithoutTheTicketKeys() throws Exception {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
        Map<Long, String> switches = new LinkedHashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            switches.put(s.guid(), s.name());
        }
        Path pkiDir = work.resolve("pki");
        PkiDirectory pki = new PkiDirectory(pkiDir);
        pki.init("bench CA", Duration.ofDays(2), List.of(), List.of(), Duration.ofDays(2), Clock.systemUTC());
        pki.switchMaterials(switches, Duration.ofDays(2), Clock.systemUTC());
        Path state = work.resolve("state");
        Path config = work.resolve("fabric-manager.yaml");
        boolean plain = MODES.contains("plain");
        if (plain && MODES.size() > 1) {
            throw new IllegalArgumentException("fm.bench.modes: plain restarts a plaintext group, alone");
        }
        Files.writeString(config, TlsProductionShapeBenchmark.config(SPEC, state, plain ? "  insecure: true"
                : "  pkiDirectory: \"" + pkiDir + "\"\n  tlsProvider: openssl"));
        System.out.printf("TLS daemon restart: %s, %d switches, %d simulate processes, %d repeats; load before: %s%n",
                SPEC, fabric.switches().size(), SIMULATORS, REPEATS, load());
        List<Restart> restarts = new ArrayList<>();
        try (FabricProcesses fp = new FabricProcesses(work)) {
            fp.startDaemon(config, "-Xmx2g");
            int port = fp.southboundPort();
            List<List<String>> parts = FabricProcesses.split(fabric, SIMULATORS);
            for (int i = 0; i < SIMULATORS; i++) {
                List<String> args = new ArrayList<>(List.of("--pgft", SPEC, "--only", String.join(",", parts.get(i))));
                if (!plain) {
                    args.addAll(List.of("--pki", pkiDir.toString(), "--tls-provider", "openssl"));
                }
                fp.startSimulator("sim-" + i, "-Xmx1g", args);
            }
            awaitConverged(fp, fabric);
            System.out.println("first start converged");
            for (int round = -1; round < REPEATS; round++) {
                for (String mode : MODES) {
                    Restart r = restart(fp, config, port, state, mode, fabric);
                    System.out.printf("%s %s: %,d ms STARTED->CONVERGED, daemon %.2f CPU-s, TLS handshakes %.0f full,"
                                    + " %.0f resumed, load %s%n", round < 0 ? "warm-up" : "run " + (round + 1), mode,
                            r.startToConvergedMs(), r.daemonCpuS(), r.full(), r.resumed(), r.load());
                    if (round >= 0) {
                        restarts.add(r);
                    }
                }
            }
        }
        for (String mode : MODES) {
            List<Restart> rs = restarts.stream().filter(r -> r.mode().equals(mode)).toList();
            System.out.printf("%s: STARTED->CONVERGED median %,.0f ms (min %,d, max %,d), daemon CPU median %.2f s,"
                            + " resumed median %.0f of %d%n", mode, median(rs.stream().mapToDouble(Restart::startToConvergedMs)),
                    rs.stream().mapToLong(Restart::startToConvergedMs).min().orElse(-1),
                    rs.stream().mapToLong(Restart::startToConvergedMs).max().orElse(-1),
                    median(rs.stream().mapToDouble(Restart::daemonCpuS)), median(rs.stream().mapToDouble(Restart::resumed)),
                    fabric.switches().size());
        }
        System.out.printf("load after: %s%n", load());
    }

    private Restart restart(FabricProcesses fp, Path config, int port, Path state, String mode, Fabric fabric)
            throws Exception {
        Process old = fp.daemon();
        old.destroy(); // SIGTERM: the daemon closes its sessions; the agents reconnect with backoff
        old.waitFor();
        if (mode.equals("new-keys")) {
            Files.deleteIfExists(state.resolve("ticket-keys"));
        }
        fp.startDaemon(config, "-Xmx2g", port);
        awaitConverged(fp, fabric);
        double cpu = FabricProcesses.cpuSeconds(fp.daemon().pid());
        if (Boolean.getBoolean("fm.bench.threads")) {
            System.out.printf("  %s daemon threads (CPU-s): %s%n", mode, FabricProcesses.topThreads(
                    FabricProcesses.threadCpuSeconds(fp.daemon().pid())));
        }
        List<com.fasterxml.jackson.databind.JsonNode> events = fp.events(0);
        String metrics = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(fp.restUrl() + "/metrics")).timeout(Duration.ofSeconds(30)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        return new Restart(mode, time(events, "CONVERGED") - time(events, "STARTED"), cpu,
                TlsAdmissionIT.value(metrics, "fabric_southbound_tls_completed_total", "kind=\"full\""),
                TlsAdmissionIT.value(metrics, "fabric_southbound_tls_completed_total", "kind=\"resumed\""), load());
    }

    private static void awaitConverged(FabricProcesses fp, Fabric fabric) throws Exception {
        fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED")
                && s.at("/switches/connected").asInt() == fabric.switches().size(), "convergence", 900);
    }

    private static double median(java.util.stream.DoubleStream values) {
        double[] v = values.sorted().toArray();
        return v.length == 0 ? Double.NaN : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static long time(List<com.fasterxml.jackson.databind.JsonNode> events, String kind) {
        for (com.fasterxml.jackson.databind.JsonNode e : events) {
            if (e.path("kind").asText().equals(kind)) {
                return e.path("timeMillis").asLong();
            }
        }
        return -1;
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
