package org.fabricmanager.routing.dmodc;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): Dmodc on one PGFT intact and with fractions of its links
 * removed, side by side, measured by the CPU time of the routing thread rather than by the wall
 * clock. The engine runs on one worker, which is the calling thread, so that thread's CPU time is
 * the whole routing's: on a machine shared with other builds (load averages of 10 to 30 on 2 cores)
 * the wall clock mostly measures the wait for a core, while CPU time moves far less. The runs are
 * interleaved (one per fabric per round) after three warm-up rounds; medians, minima and maxima
 * are printed with the ratio of each degraded fabric's median to the intact one's.
 *
 * <p>Run with {@code mvn -B -q -pl routing-dmodc -am verify -DskipITs
 * -Dsurefire.failIfNoSpecifiedTests=false -Dtest=DegradedRoutingCpuBenchmark -Dfm.bench=true};
 * {@code -Dfm.bench.pgft=SPEC} (default {@code PGFT(3;32,32,64;1,32,32;1,1,1)}),
 * {@code -Dfm.bench.fractions=0,0.01,0.05}, {@code -Dfm.bench.repeat=11}, {@code -Dfm.bench.seed=1}
 * (the same fabrics as {@code bench --pgft SPEC --degrade-links F --seed S}). Give the JVM room:
 * {@code -Dfm.test.jvm='-Xms6g -Xmx6g -Xmn3g'}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class DegradedRoutingCpuBenchmark {

    @Test
    void degradedAgainstIntactInCpuTime() {
        String spec = System.getProperty("fm.bench.pgft", "PGFT(3;32,32,64;1,32,32;1,1,1)");
        double[] fractions = Arrays.stream(System.getProperty("fm.bench.fractions", "0,0.01,0.05").split(","))
                .mapToDouble(Double::parseDouble).toArray();
        int repeat = Integer.getInteger("fm.bench.repeat", 11);
        long seed = Long.getLong("fm.bench.seed", 1L);
        FabricIndex[] fabrics = new FabricIndex[fractions.length];
        for (int f = 0; f < fractions.length; f++) {
            fabrics[f] = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)),
                    DegradationPlan.random(fractions[f], 0, seed)).index();
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[][] cpu = new double[fractions.length][repeat];
        double[][] wall = new double[fractions.length][repeat];
        double[][] routes = new double[fractions.length][repeat];
        try (DmodcEngine engine = new DmodcEngine(1)) {
            for (int round = -3; round < repeat; round++) {
                for (int f = 0; f < fractions.length; f++) {
                    System.gc();
                    long c0 = threads.getCurrentThreadCpuTime();
                    long t0 = System.nanoTime();
                    RoutingResult result = engine.route(fabrics[f]);
                    long t1 = System.nanoTime();
                    long c1 = threads.getCurrentThreadCpuTime();
                    if (round >= 0) {
                        cpu[f][round] = (c1 - c0) / 1e6;
                        wall[f][round] = (t1 - t0) / 1e6;
                        routes[f][round] = result.timings().phases().stream()
                                .filter(p -> p.name().equals("routes")).mapToLong(PhaseTimings.Phase::nanos).sum() / 1e6;
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "%s, 1 routing thread, %d interleaved warm runs per fabric, seed %d%n", spec, repeat,
                seed);
        System.out.println("| links removed | CPU median | min | max | CPU / intact | wall median | routes (wall) median |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        double intact = median(cpu[0]);
        for (int f = 0; f < fractions.length; f++) {
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.2f | %.1f | %.1f |%n", fractions[f], median(cpu[f]),
                    min(cpu[f]), max(cpu[f]), median(cpu[f]) / intact, median(wall[f]), median(routes[f]));
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static double min(double[] values) {
        return Arrays.stream(values).min().orElse(Double.NaN);
    }

    private static double max(double[] values) {
        return Arrays.stream(values).max().orElse(Double.NaN);
    }
}
