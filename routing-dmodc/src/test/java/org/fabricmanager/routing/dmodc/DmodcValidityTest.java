package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Validity against an independent up*&#47;down* reachability search (a BFS over (switch, going up
 * or already going down) states on ranks of its own), on many degraded fabrics, including heavily
 * degraded ones where some leaves get cut off.
 */
class DmodcValidityTest {
    private static final DmodcEngine ENGINE = new DmodcEngine(2);

    @AfterAll
    static void close() {
        ENGINE.close();
    }

    @Test
    void validExactlyWhenEveryLeafPairHasAnUpDownPath() {
        int invalidSeen = 0;
        List<TestFabrics.Degraded> fabrics = new ArrayList<>(TestFabrics.degradations(10));
        for (String spec : List.of("PGFT(2;4,4;1,2;1,1)", "PGFT(3;4,4,2;1,2,2;1,1,1)", "PGFT(3;2,2,3;1,2,2;1,2,1)")) {
            for (int seed = 1; seed <= 15; seed++) {
                Fabric heavy = Degrader.degrade(TestFabrics.canonical(spec), DegradationPlan.random(0.45, 1, seed));
                fabrics.add(new TestFabrics.Degraded(spec + " minus 45% of links and 1 switch, seed " + seed, heavy));
            }
        }
        for (TestFabrics.Degraded d : fabrics) {
            FabricIndex index = d.fabric().index();
            boolean[][] reach = upDownReachability(index);
            long unreachable = 0;
            List<Validity.LeafPair> firstPairs = new ArrayList<>();
            int[] leaves = index.leaves();
            for (int a = 0; a < leaves.length; a++) {
                for (int b = 0; b < leaves.length; b++) {
                    if (!reach[a][b]) {
                        unreachable++;
                        if (firstPairs.size() < Validity.MAX_EXAMPLES) {
                            firstPairs.add(new Validity.LeafPair(index.switchGuid(leaves[a]), index.switchGuid(leaves[b])));
                        }
                    }
                }
            }
            RoutingResult result = ENGINE.route(index);
            assertThat(result.validity().isValid()).as(d.description()).isEqualTo(unreachable == 0);
            assertThat(result.validity().unreachablePairs()).as(d.description()).isEqualTo(unreachable);
            assertThat(result.validity().examples()).as(d.description()).isEqualTo(firstPairs);
            if (unreachable > 0) {
                invalidSeen++;
                assertUnreachableLeavesHaveNoRoutes(d.description(), index, result.tables(), reach);
            }
        }
        assertThat(invalidSeen).as("the heavy degradations must produce some invalid fabrics").isGreaterThan(3);
    }

    @Test
    void aLeafCutOffFromItsParentsMakesEveryPairWithItUnreachable() {
        Fabric intact = TestFabrics.canonical("PGFT(3;4,4,4;1,4,4;1,1,1)");
        long cut = PgftGenerator.switchGuid(1, 5);
        List<Link> gone = new ArrayList<>();
        for (Link l : intact.links()) {
            if ((l.a() == cut || l.b() == cut) && intact.isSwitch(l.a()) && intact.isSwitch(l.b())) {
                gone.add(l);
            }
        }
        Fabric fabric = intact.withoutLinks(gone);
        FabricIndex index = fabric.index();
        RoutingResult result = ENGINE.route(index);
        int leaves = index.leafCount();
        assertThat(result.validity().isValid()).isFalse();
        assertThat(result.validity().unreachablePairs()).isEqualTo(2L * (leaves - 1));
        List<Validity.LeafPair> expected = new ArrayList<>();
        for (int leaf = 0; leaf < 5 && expected.size() < Validity.MAX_EXAMPLES; leaf++) {
            expected.add(new Validity.LeafPair(PgftGenerator.switchGuid(1, leaf), cut));
        }
        for (int leaf = 0; leaf < leaves && expected.size() < Validity.MAX_EXAMPLES; leaf++) {
            if (leaf != 5) {
                expected.add(new Validity.LeafPair(cut, PgftGenerator.switchGuid(1, leaf)));
            }
        }
        assertThat(result.validity().examples()).isEqualTo(expected);
        // What can be routed still is: node 0 reaches node 63 from leaf 0, nobody reaches leaf 5's nodes.
        ForwardingTables t = result.tables();
        int leaf0 = index.switchId(PgftGenerator.switchGuid(1, 0));
        assertThat(t.port(leaf0, 63)).isNotEqualTo(ForwardingTables.NO_ROUTE);
        assertThat(t.port(leaf0, 5 * 4)).isEqualTo(ForwardingTables.NO_ROUTE);
        int cutId = index.switchId(cut);
        assertThat(t.port(cutId, 21)).isEqualTo(2);
        assertThat(t.port(cutId, 0)).isEqualTo(ForwardingTables.NO_ROUTE);
    }

    private static void assertUnreachableLeavesHaveNoRoutes(String what, FabricIndex index, ForwardingTables t,
                                                          boolean[][] reach) {
        int[] leaves = index.leaves();
        for (int a = 0; a < leaves.length; a++) {
            for (int b = 0; b < leaves.length; b++) {
                if (!reach[a][b]) {
                    int first = index.leafNodeArray()[index.leafNodeStart(b)];
                    assertThat(t.port(leaves[a], index.nodeIndex(first))).as(what).isEqualTo(ForwardingTables.NO_ROUTE);
                }
            }
        }
    }

    /** reach[a][b]: leaf number a has a path to leaf number b going only up, then only down (by rank). */
    static boolean[][] upDownReachability(FabricIndex index) {
        int n = index.switchCount();
        int[] leaves = index.leaves();
        int[] rank = new int[n];
        Arrays.fill(rank, Integer.MAX_VALUE);
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int s : leaves) {
            rank[s] = 0;
            queue.add(s);
        }
        while (!queue.isEmpty()) {
            int s = queue.poll();
            for (int p = 1; p <= index.switchPorts(s); p++) {
                int t = index.peerSwitches(s)[p];
                if (t != FabricIndex.NONE && rank[t] == Integer.MAX_VALUE) {
                    rank[t] = rank[s] + 1;
                    queue.add(t);
                }
            }
        }
        boolean[][] reach = new boolean[leaves.length][leaves.length];
        for (int a = 0; a < leaves.length; a++) {
            boolean[] seen = new boolean[2 * n]; // state = switch * 2 + (going down ? 1 : 0)
            ArrayDeque<Integer> states = new ArrayDeque<>();
            seen[leaves[a] * 2] = true;
            states.add(leaves[a] * 2);
            while (!states.isEmpty()) {
                int state = states.poll();
                int s = state >> 1;
                boolean down = (state & 1) == 1;
                if (index.isLeaf(s)) {
                    reach[a][index.leafNumber(s)] = true;
                }
                for (int p = 1; p <= index.switchPorts(s); p++) {
                    int t = index.peerSwitches(s)[p];
                    if (t == FabricIndex.NONE || t == s) {
                        continue;
                    }
                    int next;
                    if (rank[t] > rank[s] && !down) {
                        next = t * 2;
                    } else if (rank[t] < rank[s]) {
                        next = t * 2 + 1;
                    } else {
                        continue;
                    }
                    if (!seen[next]) {
                        seen[next] = true;
                        states.add(next);
                    }
                }
            }
        }
        return reach;
    }
}
