package org.fabricmanager.routing.dmodc;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.routing.dmodc.repair.ReturnOverlay;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): where a cable's return spends its time, repaired as the daemon repairs
 * with its default engine {@code dmodc-home}: from its base (the last refined repair) with the tables in force. One
 * leaf uplink stays out (so the fabric after the return is not whole and the return searches for returned links),
 * a level-2 to level-3 cable goes down (repaired, then refined: the daemon's base), then comes back. Prints the
 * phases of each repair, and the parts of the return's {@code returns} phase timed apart: the scan for returned
 * ports, the full routing of the fabric ({@code dmodc-home}'s, its refinement included) and the overlay.
 *
 * <p>Run with {@code mvn -B -o -q -Pbench -pl routing-dmodc -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=ReturnCostBenchmark -Dfm.test.jvm=-Xmx10g [-Dfm.bench.pgft=SPEC] [-Dfm.bench.rounds=N]}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class ReturnCostBenchmark {
    private static final int THREADS = 2;

    @Test
    void oneCableDownThenBack() {
        String spec = System.getProperty("fm.bench.pgft", "PGFT(3;32,32,64;1,32,32;1,1,1)");
        int rounds = Integer.getInteger("fm.bench.rounds", 2);
        Fabric intact = PgftGenerator.generate(PgftSpec.parse(spec));
        Fabric other = intact.withoutLinks(List.of(cable(intact, PgftGenerator.switchGuid(1, 20), 2)));
        Link cable = cable(intact, PgftGenerator.switchGuid(2, 37), 3);
        Fabric down = other.withoutLinks(List.of(cable));
        try (HomeDmodcEngine home = new HomeDmodcEngine(THREADS); RoutingPool pool = new RoutingPool(THREADS, "bench")) {
            DmodcEngine repairer = (DmodcEngine) home.repairer().orElseThrow();
            long t0 = System.nanoTime();
            RoutedSnapshot base = home.routeSnapshot(intact.index());
            print(spec + ": full routing of the intact fabric", t0, base);
            // the other fault, repaired and refined: the daemon's base and tables in force from then on
            base = refined(repairer, base, base.result().tables(), other.index());
            ForwardingTables inForce = base.result().tables();
            for (int round = 1; round <= rounds; round++) {
                t0 = System.nanoTime();
                RoutedSnapshot lost = repairer.repair(base, inForce, down.index());
                print("round " + round + ": cable down, repair", t0, lost);
                RoutedSnapshot downBase = refined(repairer, base, lost.result().tables(), down.index());
                t0 = System.nanoTime();
                FabricIndex back = other.index();
                RoutedSnapshot returned = repairer.repair(downBase, downBase.result().tables(), back);
                print("round " + round + ": cable back, repair", t0, returned);
                parts(home, back, downBase.result().tables(), pool);
                base = returned;
                inForce = returned.result().tables();
            }
        }
    }

    /** The daemon's base after a fault: its repair refined (or the repair when the refinement changes nothing). */
    private static RoutedSnapshot refined(DmodcEngine repairer, RoutedSnapshot base, ForwardingTables inForce,
                                          FabricIndex next) {
        RoutedSnapshot repaired = repairer.repair(base, inForce, next);
        long t0 = System.nanoTime();
        RoutedSnapshot r = repairer.refine(base.result().tables(), repaired).orElse(repaired);
        print("  refinement", t0, r);
        return r;
    }

    /** The return's {@code returns} phase, part by part. */
    private static void parts(HomeDmodcEngine home, FabricIndex next, ForwardingTables base, RoutingPool pool) {
        long t0 = System.nanoTime();
        long[] returned = ReturnOverlay.returnedPorts(next, base, pool);
        long t1 = System.nanoTime();
        DmodcRouting full = home.routeSnapshot(next);
        long t2 = System.nanoTime();
        ReturnOverlay.overlay(next, full.costs(), base, full.result().tables(), returned, pool);
        long t3 = System.nanoTime();
        System.out.printf(Locale.ROOT, "  returns apart: returned ports %.0f ms | full routing %.0f ms (%s) | overlay"
                + " %.0f ms%n", (t1 - t0) / 1e6, (t2 - t1) / 1e6, phases(full), (t3 - t2) / 1e6);
    }

    private static void print(String what, long t0, RoutedSnapshot r) {
        System.out.printf(Locale.ROOT, "%s: %.0f ms (%s)%n", what, (System.nanoTime() - t0) / 1e6, phases(r));
    }

    private static String phases(RoutedSnapshot r) {
        return r.result().timings().phases().stream()
                .map(p -> String.format(Locale.ROOT, "%s %.0f", p.name(), p.nanos() / 1e6))
                .collect(Collectors.joining(", "));
    }

    /** A cable from switch {@code guid} up to a switch of level {@code level}. */
    private static Link cable(Fabric fabric, long guid, int level) {
        long lo = PgftGenerator.switchGuid(level, 0);
        long hi = PgftGenerator.switchGuid(level + 1, 0);
        return fabric.links().stream().filter(l -> l.a() == guid && l.b() >= lo && l.b() < hi
                || l.b() == guid && l.a() >= lo && l.a() < hi).findFirst().orElseThrow();
    }
}
