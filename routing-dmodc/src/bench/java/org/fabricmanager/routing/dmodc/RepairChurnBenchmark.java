package org.fabricmanager.routing.dmodc;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.TableChurn;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): after one fault of each kind (the first element of its kind: a
 * switch at each level, a cable at each level), the entries Dmodc's re-route and the repair change against
 * the intact routing, beside the minimum any valid routing changes ({@link TableChurn}), and the CPU time of
 * one routing thread for a repair, a re-route and a routing from scratch (medians over the repeats, after
 * two warm-up rounds). With {@code fm.bench.balance=true}, also the maximum link load under shift and
 * all-to-all of the repaired tables beside Dmodc's own for the degraded fabric (O(N²) pairs: for 4,096 nodes,
 * not 65,536).
 *
 * <p>Run with {@code mvn -B -o -q -Pbench -pl routing-dmodc -am test -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=RepairChurnBenchmark -Dfm.bench.pgft=SPEC [-Dfm.bench.repeat=5] [-Dfm.bench.balance=true]}; for
 * 65,536 nodes give the JVM room: {@code -Dfm.test.jvm=-Xmx10g}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class RepairChurnBenchmark {

    @Test
    void churnTimeAndBalancePerFaultKind() {
        String spec = System.getProperty("fm.bench.pgft", "PGFT(3;16,16,16;1,16,16;1,1,1)");
        int repeat = Integer.getInteger("fm.bench.repeat", 5);
        boolean balance = Boolean.getBoolean("fm.bench.balance");
        Fabric intact = PgftGenerator.generate(PgftSpec.parse(spec));
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        System.out.println("# " + spec + ", one routing thread, CPU ms medians of " + repeat);
        System.out.println("fault | minimum | dmodc changes (ratio) | repair changes (ratio) | repair ms | re-route ms"
                + " | from scratch ms" + (balance ? " | shift max dmodc/repair | all2all max dmodc/repair" : ""));
        try (DmodcEngine engine = new DmodcEngine(1); RoutingPool pool = new RoutingPool(2, "bench")) {
            DmodcRouting base = engine.compute(intact.index());
            for (RepairFaults.Fault fault : RepairFaults.everyKind(intact, PgftSpec.parse(spec).h(), null)) {
                FabricIndex next = fault.degraded().index();
                double[] repairMs = new double[repeat];
                double[] rerouteMs = new double[repeat];
                double[] scratchMs = new double[repeat];
                DmodcRouting repaired = null;
                DmodcRouting rerouted = null;
                for (int round = -2; round < repeat; round++) {
                    System.gc();
                    long c0 = cpu.getCurrentThreadCpuTime();
                    repaired = engine.repair(base, next);
                    long c1 = cpu.getCurrentThreadCpuTime();
                    rerouted = engine.reroute(next, base);
                    long c2 = cpu.getCurrentThreadCpuTime();
                    engine.compute(next);
                    long c3 = cpu.getCurrentThreadCpuTime();
                    if (round >= 0) {
                        repairMs[round] = (c1 - c0) / 1e6;
                        rerouteMs[round] = (c2 - c1) / 1e6;
                        scratchMs[round] = (c3 - c2) / 1e6;
                    }
                }
                ForwardingTables before = base.result().tables();
                TableChurn dmodc = engine.churn(before, rerouted, pool);
                TableChurn repair = engine.churn(before, repaired, pool);
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                        "%s | %,d | %,d (%.1fx) | %,d (%.2fx) | %.1f | %.1f | %.1f", fault.name(), repair.minimumEntries(),
                        dmodc.changedEntries(), dmodc.ratio(), repair.changedEntries(), repair.ratio(), median(repairMs),
                        median(rerouteMs), median(scratchMs)));
                if (balance) {
                    line.append(String.format(Locale.ROOT, " | %d / %d | %d / %d",
                            max(next, rerouted, new TrafficPattern.Shift()), max(next, repaired, new TrafficPattern.Shift()),
                            max(next, rerouted, new TrafficPattern.AllToAll()),
                            max(next, repaired, new TrafficPattern.AllToAll())));
                }
                System.out.println(line);
            }
        }
    }

    private static long max(FabricIndex index, DmodcRouting routing, TrafficPattern pattern) {
        return new CongestionAnalyzer(RoutedFabric.of(index, routing.result().tables()), 2).analyze(pattern).max();
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
