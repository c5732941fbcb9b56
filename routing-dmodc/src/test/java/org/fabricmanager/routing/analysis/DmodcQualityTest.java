package org.fabricmanager.routing.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.RouteDistances;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Dmodc's routes judged by the analyses: shift congestion, shortest up*&#47;down* paths, deadlock
 * freedom. Runs wherever the {@code dmodc} engine is registered.
 */
class DmodcQualityTest {

    @BeforeEach
    void needsDmodc() {
        assumeTrue(RoutingEngines.names().contains("dmodc"), "the dmodc engine is not registered in this build");
    }

    /** Intact full-bisection PGFTs (m_l * p_l = w_{l+1} * p_{l+1} at every level). */
    private static final List<String> FULL_BISECTION = List.of(
            "PGFT(2;4,4;1,4;1,1)",
            "PGFT(2;4,6;1,2;1,2)",
            "PGFT(2;6,3;1,6;1,1)",
            "PGFT(3;2,2,3;1,2,1;1,1,2)",
            "PGFT(3;4,4,4;1,4,4;1,1,1)",
            "PGFT(3;3,3,4;1,3,3;1,1,1)",
            "PGFT(3;4,2,3;1,4,2;1,1,1)",
            "PGFT(3;4,2,2;1,2,2;1,2,2)");

    @Test
    void everyShiftPermutationHasCongestionOneOnIntactFullBisectionFatTrees() {
        try (RoutingEngine dmodc = RoutingEngines.create("dmodc", 2)) {
            for (String text : FULL_BISECTION) {
                assertThat(PgftSpec.parse(text).isFullBisection()).as(text).isTrue();
                FabricIndex index = TestFabrics.canonical(text).index();
                RoutedFabric routed = RoutedFabric.of(index, dmodc.route(index).tables());
                PatternCongestion shift = new CongestionAnalyzer(routed, 2).analyze(new TrafficPattern.Shift());
                assertThat(shift.max()).as(text).isEqualTo(1);
                assertThat(shift.mean()).as(text).isEqualTo(1.0);
                assertThat(shift.unroutedPairs()).as(text).isZero();
            }
        }
    }

    @Test
    void onDegradedFatTreesRoutesAreValidShortestUpDownAndDeadlockFree() {
        List<String> specs = new ArrayList<>(TestFabrics.ROUTING_SPECS);
        specs.addAll(FULL_BISECTION);
        int invalid = 0;
        int checked = 0;
        try (RoutingEngine dmodc = RoutingEngines.create("dmodc", 2)) {
            for (String spec : specs) {
                for (long seed = 1; seed <= 30; seed++) {
                    Fabric fabric = TestFabrics.degraded(spec, seed);
                    String what = TestFabrics.describe(spec, seed);
                    if (!check(dmodc, fabric.index(), what)) {
                        invalid++;
                    }
                    checked++;
                }
            }
        }
        // the degradations are strong enough to disconnect some leaves, but not most fabrics
        assertThat(invalid).isLessThan(checked / 2);
    }

    /** Checks one fabric; returns whether the routing is valid. */
    private static boolean check(RoutingEngine engine, FabricIndex index, String what) {
        RoutingResult result = engine.route(index);
        RouteDistances.UpRelation up = RouteDistances.rankFromLeaves(index);
        int[][] legal = RouteDistances.leafUpDownDistances(index, up);
        long unreachable = RouteDistances.unreachableLeafPairs(index, legal);
        assertThat(result.validity().unreachablePairs()).as(what).isEqualTo(unreachable);
        assertThat(result.validity().isValid()).as(what).isEqualTo(unreachable == 0);

        RoutedFabric routed = RoutedFabric.of(index, result.tables());
        PathTracer tracer = new PathTracer(routed);
        int[] nodes = RouteDistances.attached(index);
        for (int src : nodes) {
            for (int dst : nodes) {
                if (src == dst) {
                    continue;
                }
                int from = index.nodeLeaf(index.nodeByDestination(src));
                int to = index.nodeLeaf(index.nodeByDestination(dst));
                Trace t = tracer.trace(src, dst);
                if (legal[from][to] == Integer.MAX_VALUE) {
                    assertThat(t.delivered()).as("%s: %d -> %d has no up*/down* path", what, src, dst).isFalse();
                    continue;
                }
                assertThat(t.outcome()).as("%s: %d -> %d", what, src, dst).isEqualTo(Trace.Outcome.DELIVERED);
                List<Integer> switches = new ArrayList<>();
                t.hops().forEach(h -> switches.add(h.switchId()));
                assertThat(RouteDistances.isUpDown(switches, up)).as("%s: %d -> %d is up*/down*: %s", what, src, dst,
                        switches).isTrue();
                assertThat(switches).as("%s: %d -> %d is a shortest up*/down* path", what, src, dst)
                        .hasSize(legal[from][to] + 1);
            }
        }
        DeadlockReport deadlock = new DeadlockAnalyzer(routed, VirtualChannels.single(), 2).analyze();
        assertThat(deadlock.deadlockFree()).as("%s: cycle %s", what, deadlock.cycle()).isTrue();
        return unreachable == 0;
    }
}
