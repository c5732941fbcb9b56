package org.fabricmanager.routing.baseline;

import static org.assertj.core.api.Assertions.assertThat;

import org.fabricmanager.routing.RouteDistances;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.analysis.PathTracer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.Trace;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.Test;

class MinHopEngineTest {

    @Test
    void everyRouteIsAShortestPathOnGeneratedAndDegradedFabrics() {
        try (RoutingEngine engine = new MinHopEngine(1)) {
            for (String spec : TestFabrics.ROUTING_SPECS) {
                for (long seed = 0; seed < 20; seed++) {
                    Fabric fabric = seed == 0 ? TestFabrics.canonical(spec) : TestFabrics.degraded(spec, seed);
                    checkMinimal(engine, fabric.index(), TestFabrics.describe(spec, seed));
                }
            }
        }
    }

    static void checkMinimal(RoutingEngine engine, FabricIndex index, String what) {
        RoutingResult result = engine.route(index);
        int[][] distance = RouteDistances.switchDistances(index);
        PathTracer tracer = new PathTracer(RoutedFabric.of(index, result.tables()));
        int[] nodes = RouteDistances.attached(index);
        long disconnectedLeafPairs = 0;
        for (int a : index.leaves()) {
            for (int b : index.leaves()) {
                if (a != b && distance[a][b] == Integer.MAX_VALUE) {
                    disconnectedLeafPairs++;
                }
            }
        }
        assertThat(result.validity().unreachablePairs()).as(what).isEqualTo(disconnectedLeafPairs);
        assertThat(result.validity().isValid()).as(what).isEqualTo(disconnectedLeafPairs == 0);
        for (int src : nodes) {
            for (int dst : nodes) {
                if (src == dst) {
                    continue;
                }
                Trace t = tracer.trace(src, dst);
                int hops = distance[index.nodeLeaf(index.nodeByDestination(src))][index.nodeLeaf(
                        index.nodeByDestination(dst))];
                if (hops == Integer.MAX_VALUE) {
                    assertThat(t.outcome()).as("%s: %d -> %d", what, src, dst).isEqualTo(Trace.Outcome.NO_ROUTE);
                } else {
                    assertThat(t.outcome()).as("%s: %d -> %d", what, src, dst).isEqualTo(Trace.Outcome.DELIVERED);
                    assertThat(t.hops()).as("%s: %d -> %d", what, src, dst).hasSize(hops + 1);
                }
            }
        }
    }

    @Test
    void spreadsTheNodesOfALeafOverItsUpPorts() {
        // PGFT(2;4,4;1,4;1,1): 4 nodes per remote leaf, 4 up-ports; each remote leaf's nodes use all four
        Fabric fabric = TestFabrics.canonical("PGFT(2;4,4;1,4;1,1)");
        FabricIndex index = fabric.index();
        try (RoutingEngine engine = new MinHopEngine(1)) {
            RoutingResult result = engine.route(index);
            for (int leaf : index.leaves()) {
                for (int remote = 0; remote < 4; remote++) {
                    if (index.leaves()[remote] == leaf) {
                        continue;
                    }
                    java.util.Set<Integer> ports = new java.util.HashSet<>();
                    for (int d = remote * 4; d < remote * 4 + 4; d++) {
                        ports.add(result.tables().port(leaf, d));
                    }
                    assertThat(ports).containsExactlyInAnyOrder(5, 6, 7, 8);
                }
            }
        }
    }

    @Test
    void tablesDoNotDependOnTheThreadCount() {
        for (long seed = 1; seed <= 4; seed++) {
            FabricIndex index = TestFabrics.degraded("PGFT(3;4,4,4;1,4,4;1,1,1)", seed).index();
            try (RoutingEngine one = new MinHopEngine(1); RoutingEngine four = new MinHopEngine(4)) {
                assertThat(four.route(index).tables().sameAs(one.route(index).tables())).isTrue();
            }
        }
    }

    @Test
    void reportsItsPhases() {
        try (RoutingEngine engine = new MinHopEngine(2)) {
            RoutingResult result = engine.route(TestFabrics.canonical("PGFT(2;4,4;1,4;1,1)").index());
            assertThat(result.engine()).isEqualTo("minhop");
            assertThat(result.timings().phases()).extracting(p -> p.name()).containsExactly("hops", "routes",
                    "validity");
        }
    }
}
