package org.fabricmanager.routing.baseline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.fabricmanager.routing.RouteDistances;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.PathTracer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.Trace;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.Test;

/**
 * The {@code sssp} baseline as properties: every pair of connected nodes is delivered (no dead end, no loop)
 * and the validity counts exactly the disconnected leaf pairs, on generated and seeded degraded fabrics; the
 * first destination, routed while every weight is still 1, takes shortest paths in hops; the tables do not
 * depend on the run; and the weights spread a leaf's destinations over its up-ports.
 */
class SsspEngineTest {

    @Test
    void everyConnectedPairIsDeliveredOnGeneratedAndDegradedFabrics() {
        SsspEngine engine = new SsspEngine();
        for (String spec : TestFabrics.ROUTING_SPECS) {
            for (long seed = 0; seed < 6; seed++) {
                Fabric fabric = seed == 0 ? TestFabrics.canonical(spec) : TestFabrics.degraded(spec, seed);
                check(engine.route(fabric.index()), fabric.index(), TestFabrics.describe(spec, seed));
            }
        }
    }

    private static void check(RoutingResult result, FabricIndex index, String what) {
        int[][] distance = RouteDistances.switchDistances(index);
        long disconnected = 0;
        for (int a : index.leaves()) {
            for (int b : index.leaves()) {
                if (a != b && distance[a][b] == Integer.MAX_VALUE) {
                    disconnected++;
                }
            }
        }
        assertThat(result.validity().unreachablePairs()).as(what).isEqualTo(disconnected);
        PathTracer tracer = new PathTracer(RoutedFabric.of(index, result.tables()));
        int[] nodes = RouteDistances.attached(index);
        int first = nodes.length == 0 ? -1 : nodes[0];
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
                    continue;
                }
                assertThat(t.outcome()).as("%s: %d -> %d", what, src, dst).isEqualTo(Trace.Outcome.DELIVERED);
                assertThat(t.hops().size()).as("%s: %d -> %d at least the shortest", what, src, dst)
                        .isGreaterThanOrEqualTo(hops + 1);
                if (dst == first) {
                    assertThat(t.hops()).as("%s: %d -> %d, all weights 1", what, src, dst).hasSize(hops + 1);
                }
            }
        }
    }

    @Test
    void tablesAreTheSameOnEveryRun() {
        for (long seed = 1; seed <= 3; seed++) {
            FabricIndex index = TestFabrics.degraded("PGFT(3;4,4,4;1,4,4;1,1,1)", seed).index();
            assertThat(new SsspEngine().route(index).tables().sameAs(new SsspEngine().route(index).tables())).isTrue();
        }
    }

    @Test
    void weightsSpreadTheNodesOfALeafOverItsUpPorts() {
        // PGFT(2;4,4;1,4;1,1): 4 nodes per remote leaf, 4 up-ports; the weights send each remote leaf's nodes
        // through all four (a plain shortest-path tree would send them all through the first)
        FabricIndex index = TestFabrics.canonical("PGFT(2;4,4;1,4;1,1)").index();
        RoutingResult result = new SsspEngine().route(index);
        assertThat(result.engine()).isEqualTo("sssp");
        assertThat(result.timings().phases()).extracting(p -> p.name()).containsExactly("routes", "validity");
        for (int leaf : index.leaves()) {
            for (int remote = 0; remote < 4; remote++) {
                if (index.leaves()[remote] == leaf) {
                    continue;
                }
                Set<Integer> ports = new HashSet<>();
                for (int d = remote * 4; d < remote * 4 + 4; d++) {
                    ports.add(result.tables().port(leaf, d));
                }
                assertThat(ports).containsExactlyInAnyOrder(5, 6, 7, 8);
            }
        }
        // and the all-to-all load is then even: 4 leaves x 4 nodes, each up link carries 3 remote leaves' worth
        long max = new CongestionAnalyzer(RoutedFabric.of(index, result.tables()), 1)
                .analyze(new TrafficPattern.AllToAll()).max();
        assertThat(max).isEqualTo(12);
    }
}
