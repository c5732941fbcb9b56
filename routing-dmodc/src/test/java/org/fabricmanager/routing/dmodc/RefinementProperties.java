package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.DeadlockAnalyzer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TracedValidity;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.FabricIndex;

/**
 * The properties every refinement of Dmodc's tables keeps ({@code dmodc-home}), checked
 * against the plain engine: every entry one of Dmodc's candidates (formula (2): the same leaf pairs routed, over
 * shortest up*&#47;down* paths), Dmodc's validity (also traced), deadlock freedom, and the same tables from engines
 * of one and two threads. Returns the balance figures of both, for the caller's own bounds.
 */
public final class RefinementProperties {
    private static final TrafficPattern RANDOM = TrafficPattern.parse("random:50:7");

    private RefinementProperties() {
    }

    /** Shift, all-to-all and random ({@code random:50:7}) maxima of the refinement and of Dmodc; entries changed. */
    public record Figures(long shift, long dmodcShift, long allToAll, long dmodcAllToAll, long random, long dmodcRandom,
                          long changed) {
    }

    /** A fabric to check, with what it is. */
    public record Case(String what, FabricIndex index) {
    }

    /**
     * The fabrics degraded as the balance sweep degrades its 4,096-node fabric (5% of the links, no switch), at a
     * size a unit test can route: three PGFTs, seeds 1 to 3.
     */
    public static List<Case> sweepLike() {
        List<Case> cases = new ArrayList<>();
        for (String spec : List.of("PGFT(3;8,8,8;1,8,8;1,1,1)", "PGFT(3;4,8,16;1,4,4;1,1,2)", "PGFT(3;4,4,16;1,4,4;1,1,1)")) {
            for (long seed = 1; seed <= 3; seed++) {
                cases.add(new Case(spec + ", 5% of links removed, seed " + seed,
                        Degrader.degrade(TestFabrics.canonical(spec), DegradationPlan.random(0.05, 0, seed)).index()));
            }
        }
        return cases;
    }

    /** On every intact fabric of the Dmodc and medium test sets, {@code engine} named {@code name} gives Dmodc's tables. */
    public static void assertIntactTablesAreDmodcs(RoutingEngine engine, String name, DmodcEngine dmodc) {
        List<String> specs = new ArrayList<>(TestFabrics.DMODC_SPECS);
        specs.addAll(TestFabrics.MEDIUM_SPECS);
        for (String spec : specs) {
            FabricIndex index = TestFabrics.canonical(spec).index();
            RoutingResult refined = engine.route(index);
            assertThat(refined.engine()).isEqualTo(name);
            assertThat(refined.tables().sameAs(dmodc.route(index).tables())).as(spec).isTrue();
        }
    }

    /** Checks the properties of {@code one} and {@code two} (the same engine, one and two threads) on {@code index}. */
    public static Figures check(String what, FabricIndex index, DmodcEngine dmodc, RoutingEngine one, RoutingEngine two) {
        DmodcRouting plain = dmodc.compute(index);
        RoutingResult refined = one.route(index);
        ForwardingTables tables = refined.tables();
        assertThat(two.route(index).tables().sameAs(tables)).as("%s: two threads", what).isTrue();
        assertThat(refined.validity()).as(what).isEqualTo(plain.result().validity());
        RoutedFabric routed = RoutedFabric.of(index, tables);
        assertThat(TracedValidity.of(routed).unreachablePairs()).as("%s: traced", what)
                .isEqualTo(plain.result().validity().unreachablePairs());
        assertThat(new DeadlockAnalyzer(routed).analyze().deadlockFree()).as("%s: deadlock-free", what).isTrue();
        long changed = assertDmodcCandidates(what, index, plain, tables);
        CongestionAnalyzer mine = new CongestionAnalyzer(routed, 1);
        CongestionAnalyzer theirs = new CongestionAnalyzer(RoutedFabric.of(index, plain.result().tables()), 1);
        return new Figures(mine.analyze(new TrafficPattern.Shift()).max(), theirs.analyze(new TrafficPattern.Shift()).max(),
                mine.analyze(new TrafficPattern.AllToAll()).max(), theirs.analyze(new TrafficPattern.AllToAll()).max(),
                mine.analyze(RANDOM).max(), theirs.analyze(RANDOM).max(), changed);
    }

    /** Every entry of {@code tables} is one of Dmodc's candidate ports; returns how many differ from Dmodc's. */
    private static long assertDmodcCandidates(String what, FabricIndex index, DmodcRouting plain, ForwardingTables tables) {
        ForwardingTables dmodc = plain.result().tables();
        long differing = 0;
        for (int s = 0; s < index.switchCount(); s++) {
            for (int d = 0; d < index.destinationCount(); d++) {
                int port = tables.port(s, d);
                if (port == dmodc.port(s, d)) {
                    continue;
                }
                differing++;
                assertThat(plain.candidatePorts(s, d)).as("%s: switch %d destination %d", what, s, d).contains(port);
            }
        }
        return differing;
    }
}
