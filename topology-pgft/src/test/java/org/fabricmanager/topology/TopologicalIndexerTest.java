package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.fabricmanager.testing.TestFabrics;
import org.junit.jupiter.api.Test;

/** Destination indices in topological order: the canonical order on canonical fabrics, grouped by ancestry otherwise. */
class TopologicalIndexerTest {

    @Test
    void givesTheCanonicalOrderOnCanonicalFabricsWhateverTheirIndices() {
        for (PgftSpec spec : TestFabrics.manySpecs()) {
            Fabric canonical = PgftGenerator.generate(spec);
            Fabric shuffled = withShuffledIndices(canonical, spec.hashCode());
            long[] order = TopologicalIndexer.order(shuffled);
            for (int d = 0; d < spec.nodeCount(); d++) {
                assertThat(order[d]).as(spec + " index " + d).isEqualTo(PgftGenerator.nodeGuid(d));
            }
            assertThat(TopologicalIndexer.reindex(shuffled)).as(spec.toString()).isEqualTo(canonical);
        }
    }

    @Test
    void keepsNodesOfALeafTogetherAndLeavesGroupedByAncestorsOnRelabelledFabrics() {
        for (PgftSpec spec : TestFabrics.manySpecs()) {
            Fabric relabelled = TestFabrics.relabel(withShuffledIndices(PgftGenerator.generate(spec), 5), 11);
            Fabric reindexed = TopologicalIndexer.reindex(relabelled);
            FabricIndex index = reindexed.index();
            // nodes of one leaf are consecutive, in port order
            for (int leaf = 0; leaf < index.leafCount(); leaf++) {
                int[] nodes = index.peerNodes(index.leaves()[leaf]);
                int previous = -1;
                for (int p = 1; p < nodes.length; p++) {
                    if (nodes[p] != FabricIndex.NONE) {
                        int d = index.nodeIndex(nodes[p]);
                        assertThat(previous == -1 || d == previous + 1).as(spec + " leaf nodes consecutive").isTrue();
                        previous = d;
                    }
                }
            }
            // leaves under one level-l pod form one block of M_l consecutive indices: the canonical
            // names (kept by relabel) tell which pod each node is in
            for (int l = 2; l <= spec.h(); l++) {
                int block = spec.bigM(l);
                Map<Integer, Integer> podOfBlock = new HashMap<>();
                for (EndNode n : reindexed.nodes()) {
                    int canonicalD = Integer.parseInt(n.name().substring(1));
                    Integer pod = podOfBlock.putIfAbsent(n.index() / block, canonicalD / block);
                    assertThat(pod == null || pod == canonicalD / block).as(spec + " level " + l + " pods contiguous").isTrue();
                }
            }
        }
    }

    @Test
    void aCutOffLeafMovesAfterTheGroupsWithSmallerLeaves() {
        PgftSpec spec = PgftSpec.parse("PGFT(2;2,3;1,2;1,1)");
        Fabric fabric = PgftGenerator.generate(spec);
        long leaf1 = PgftGenerator.switchGuid(1, 1);
        List<Link> uplinks = fabric.links().stream().filter(l -> l.a() == leaf1 && fabric.isSwitch(l.b())).toList();
        long[] order = TopologicalIndexer.order(fabric.withoutLinks(uplinks));
        // leaves 0 and 2 stay grouped; leaf 1 (nodes 2, 3) is its own group, after leaf 0's group
        assertThat(order).containsExactly(node(0), node(1), node(4), node(5), node(2), node(3));
    }

    @Test
    void nodesWithoutLinkComeLastByTheirIndex() {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,1;1,1)"));
        Fabric cut = fabric.withoutLinks(List.of(TestFabrics.linkAt(fabric, node(0), 1), TestFabrics.linkAt(fabric, node(2), 1)));
        assertThat(TopologicalIndexer.order(cut)).containsExactly(node(1), node(3), node(0), node(2));
    }

    @Test
    void keepsGivenIndicesAndFillsTheSmallestFreeOnes() {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,1;1,1)"));
        Map<Long, Integer> kept = new HashMap<>();
        kept.put(node(3), 0);
        kept.put(node(1), 5);
        kept.put(0x0002c90300000001L, 1); // a node that is gone keeps its index reserved
        Fabric re = TopologicalIndexer.reindex(fabric, kept);
        assertThat(re.nodeByGuid(node(3)).orElseThrow().index()).isEqualTo(0);
        assertThat(re.nodeByGuid(node(1)).orElseThrow().index()).isEqualTo(5);
        assertThat(re.nodeByGuid(node(0)).orElseThrow().index()).isEqualTo(2);
        assertThat(re.nodeByGuid(node(2)).orElseThrow().index()).isEqualTo(3);
        assertThatThrownBy(() -> TopologicalIndexer.reindex(fabric, Map.of(node(0), 1, node(1), 1)))
                .hasMessageContaining("kept index 1 is given to both");
        assertThatThrownBy(() -> TopologicalIndexer.reindex(fabric, Map.of(node(0), -2)))
                .hasMessageContaining("negative");
    }

    private static long node(int d) {
        return PgftGenerator.nodeGuid(d);
    }

    private static Fabric withShuffledIndices(Fabric fabric, long seed) {
        List<Integer> indices = new ArrayList<>();
        for (int i = 0; i < fabric.nodes().size(); i++) {
            indices.add(i);
        }
        Collections.shuffle(indices, new Random(seed));
        List<EndNode> nodes = new ArrayList<>();
        for (int i = 0; i < fabric.nodes().size(); i++) {
            EndNode n = fabric.nodes().get(i);
            nodes.add(new EndNode(n.guid(), n.name(), indices.get(i)));
        }
        return new Fabric(fabric.pgft().orElse(null), fabric.switches(), nodes, fabric.links());
    }
}
