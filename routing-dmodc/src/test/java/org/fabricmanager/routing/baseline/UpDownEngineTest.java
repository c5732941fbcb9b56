package org.fabricmanager.routing.baseline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.RouteDistances;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.analysis.DeadlockAnalyzer;
import org.fabricmanager.routing.analysis.DeadlockReport;
import org.fabricmanager.routing.analysis.PathTracer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.Trace;
import org.fabricmanager.routing.analysis.VirtualChannels;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.Test;

class UpDownEngineTest {

    @Test
    void routesAreShortestUpDownPathsAndDeadlockFreeOnDegradedFabrics() {
        try (UpDownEngine engine = new UpDownEngine(2)) {
            for (String spec : TestFabrics.ROUTING_SPECS) {
                for (long seed = 0; seed < 20; seed++) {
                    Fabric fabric = seed == 0 ? TestFabrics.canonical(spec) : TestFabrics.degraded(spec, seed);
                    check(engine, fabric.index(), TestFabrics.describe(spec, seed), true);
                }
            }
        }
    }

    @Test
    void rankingFromDetectedRootsAlsoGivesLegalDeadlockFreeRoutes() {
        try (UpDownEngine engine = new UpDownEngine(1, UpDownEngine.Ranking.DETECTED_ROOTS)) {
            for (String spec : TestFabrics.ROUTING_SPECS) {
                for (long seed = 0; seed < 10; seed++) {
                    Fabric fabric = seed == 0 ? TestFabrics.canonical(spec) : TestFabrics.degraded(spec, seed);
                    if (RootDetector.detect(fabric.index()).length > 0) {
                        check(engine, fabric.index(), TestFabrics.describe(spec, seed) + " (detected roots)", false);
                    }
                }
            }
        }
    }

    @Test
    void intactFatTreesRankedFromRootsRouteLikeRankedFromLeaves() {
        for (String spec : TestFabrics.ROUTING_SPECS) {
            FabricIndex index = TestFabrics.canonical(spec).index();
            try (UpDownEngine leaves = new UpDownEngine(1);
                 UpDownEngine roots = new UpDownEngine(1, UpDownEngine.Ranking.DETECTED_ROOTS)) {
                RoutedFabric a = RoutedFabric.of(index, leaves.route(index).tables());
                RoutedFabric b = RoutedFabric.of(index, roots.route(index).tables());
                PathTracer ta = new PathTracer(a);
                PathTracer tb = new PathTracer(b);
                for (int src : RouteDistances.attached(index)) {
                    for (int dst : RouteDistances.attached(index)) {
                        if (src != dst) {
                            assertThat(tb.trace(src, dst).hops()).as(spec).hasSameSizeAs(ta.trace(src, dst).hops());
                        }
                    }
                }
            }
        }
    }

    private static void check(UpDownEngine engine, FabricIndex index, String what, boolean shortest) {
        RoutingResult result = engine.route(index);
        UpDownOrder order = engine.order(index);
        RouteDistances.UpRelation up = order::isUp;
        RoutedFabric routed = RoutedFabric.of(index, result.tables());
        PathTracer tracer = new PathTracer(routed);
        int[] nodes = RouteDistances.attached(index);
        int[][] legal = RouteDistances.leafUpDownDistances(index, up);
        long unreachable = RouteDistances.unreachableLeafPairs(index, legal);
        assertThat(result.validity().unreachablePairs()).as(what).isEqualTo(unreachable);
        for (int src : nodes) {
            for (int dst : nodes) {
                if (src == dst) {
                    continue;
                }
                Trace t = tracer.trace(src, dst);
                int from = index.nodeLeaf(index.nodeByDestination(src));
                int to = index.nodeLeaf(index.nodeByDestination(dst));
                if (legal[from][to] == Integer.MAX_VALUE) {
                    assertThat(t.outcome()).as("%s: %d -> %d", what, src, dst).isEqualTo(Trace.Outcome.NO_ROUTE);
                    continue;
                }
                assertThat(t.outcome()).as("%s: %d -> %d", what, src, dst).isEqualTo(Trace.Outcome.DELIVERED);
                List<Integer> switches = new ArrayList<>();
                t.hops().forEach(h -> switches.add(h.switchId()));
                assertThat(RouteDistances.isUpDown(switches, up)).as("%s: %d -> %d is up*/down*: %s", what, src, dst,
                        switches).isTrue();
                if (shortest) {
                    assertThat(switches).as("%s: %d -> %d", what, src, dst).hasSize(legal[from][to] + 1);
                }
            }
        }
        DeadlockReport deadlock = new DeadlockAnalyzer(routed, VirtualChannels.single(), 2).analyze();
        assertThat(deadlock.deadlockFree()).as("%s: cycle %s", what, deadlock.cycle()).isTrue();
    }

    @Test
    void tablesDoNotDependOnTheThreadCount() {
        for (long seed = 1; seed <= 4; seed++) {
            FabricIndex index = TestFabrics.degraded("PGFT(3;4,4,3;1,2,4;1,2,1)", seed).index();
            try (UpDownEngine one = new UpDownEngine(1); UpDownEngine three = new UpDownEngine(3)) {
                assertThat(three.route(index).tables().sameAs(one.route(index).tables())).isTrue();
            }
        }
    }
}
