package org.fabricmanager.system;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): daemon start to every table acknowledged, with a simulated
 * fabric in the same JVM, for the two fabrics of {@code docs/performance.md}. Run with
 * {@code mvn -B -q -pl fabric-manager -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=DaemonConvergenceBenchmark -Dfm.bench=true}; figures go to stdout.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class DaemonConvergenceBenchmark {
    private static final int REPEATS = Integer.getInteger("fm.bench.repeats", 5);

    record Run(double convergedMs, double routingMs, long blocks, long bytes, long retries) {
    }

    @Test
    void startToConverged() throws Exception {
        System.out.printf("machine: %d cores, %s %s; load before: %s%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name"), System.getProperty("java.version"), load());
        for (String spec : List.of("PGFT(3;8,8,8;1,8,8;1,1,1)", "PGFT(3;16,16,16;1,16,16;1,1,1)")) {
            PgftSpec s = PgftSpec.parse(spec);
            Fabric fabric = PgftGenerator.generate(s);
            Run cold = once(s, fabric);
            List<Run> runs = new ArrayList<>();
            for (int i = 0; i < REPEATS; i++) {
                runs.add(once(s, fabric));
            }
            double[] conv = runs.stream().mapToDouble(Run::convergedMs).sorted().toArray();
            double[] routing = runs.stream().mapToDouble(Run::routingMs).sorted().toArray();
            System.out.printf("%s: %d switches, %d nodes; cold %.0f ms; warm start-to-converged median %.0f ms "
                            + "(min %.0f, max %.0f) over %d; routing median %.1f ms; %d blocks, %d bytes, %d retries%n",
                    spec, fabric.switches().size(), fabric.nodes().size(), cold.convergedMs(), conv[conv.length / 2],
                    conv[0], conv[conv.length - 1], conv.length, routing[routing.length / 2], runs.get(0).blocks(),
                    runs.get(0).bytes(), runs.stream().mapToLong(Run::retries).sum());
            System.out.println("  runs (ms): " + Arrays.toString(Arrays.stream(conv).map(Math::rint).toArray()));
        }
        System.out.printf("load after: %s%n", load());
    }

    private static Run once(PgftSpec spec, Fabric fabric) throws Exception {
        Path state = Files.createTempDirectory("fm-bench-");
        CountDownLatch converged = new CountDownLatch(1);
        long[] convergedAt = new long[1];
        long start = System.nanoTime();
        FabricManagerDaemon daemon = FabricManagerDaemon.start(SystemSupport.config(state, spec), List.of(m -> {
            if (m.kind() == Milestone.Kind.CONVERGED) {
                convergedAt[0] = System.nanoTime();
                converged.countDown();
            }
        }));
        try (FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            sim.start();
            if (!converged.await(120, TimeUnit.SECONDS)) {
                throw new AssertionError("no convergence for " + spec);
            }
            Views.Status st = daemon.api().status().get();
            return new Run((convergedAt[0] - start) / 1e6, st.routing().durationMs(), st.push().blocks(),
                    st.push().bytes(), st.push().retries());
        } finally {
            daemon.close();
            try (Stream<Path> files = Files.walk(state)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
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
