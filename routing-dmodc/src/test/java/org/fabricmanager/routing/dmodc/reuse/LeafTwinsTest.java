package org.fabricmanager.routing.dmodc.reuse;

import static org.assertj.core.api.Assertions.assertThat;

import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.routing.dmodc.preprocess.CostDivider;
import org.fabricmanager.routing.dmodc.preprocess.Neighbours;
import org.fabricmanager.routing.dmodc.preprocess.Ranks;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Link;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.fabricmanager.testing.TestFabrics;

/**
 * Which leaves copy another's row: in an intact PGFT every leaf of a pod but the first; a leaf that lost an
 * uplink is nobody's twin. (That the copied rows are exact is the engine's reference tests' job: they run
 * on degraded fabrics full of twins.)
 */
class LeafTwinsTest {
    private static final RoutingPool POOL = new RoutingPool(2, "test");

    @AfterAll
    static void close() {
        POOL.close();
    }

    private static int[] twins(Fabric fabric) {
        FabricIndex index = fabric.index();
        Ranks ranks = Ranks.of(index);
        CostDivider.Result cd = CostDivider.compute(index, ranks, Neighbours.of(index, ranks), POOL);
        return LeafTwins.of(index, cd.costs(), cd.dividers());
    }

    @Test
    void inAnIntactPgftEveryLeafOfAPodButTheFirstIsATwin() {
        Fabric fabric = TestFabrics.canonical("PGFT(3;4,4,4;1,4,4;1,1,1)"); // 4 pods of 4 leaves
        FabricIndex index = fabric.index();
        int[] twinOf = twins(fabric);
        int leaves = 0;
        int twinCount = 0;
        for (int s = 0; s < index.switchCount(); s++) {
            if (index.leafNumber(s) == FabricIndex.NONE) {
                assertThat(twinOf[s]).as("switch %d is no leaf", s).isNegative();
                continue;
            }
            leaves++;
            if (twinOf[s] >= 0) {
                twinCount++;
                assertThat(index.leafNumber(twinOf[s])).isNotEqualTo(FabricIndex.NONE);
                assertThat(twinOf[twinOf[s]]).as("a representative is routed on its own").isNegative();
            }
        }
        assertThat(leaves).isEqualTo(16);
        assertThat(twinCount).isEqualTo(12);
    }

    @Test
    void aLeafThatLostAnUplinkIsNobodysTwin() {
        Fabric intact = TestFabrics.canonical("PGFT(3;4,4,4;1,4,4;1,1,1)");
        FabricIndex index = intact.index();
        int leaf = -1;
        for (int s = 0; s < index.switchCount() && leaf < 0; s++) {
            if (index.leafNumber(s) != FabricIndex.NONE && twins(intact)[s] >= 0) {
                leaf = s;
            }
        }
        long guid = index.switchGuid(leaf);
        Link uplink = intact.links().stream().filter(l -> (l.a() == guid && intact.isSwitch(l.b()))
                || (l.b() == guid && intact.isSwitch(l.a()))).findFirst().orElseThrow();
        Fabric degraded = intact.withoutLinks(java.util.List.of(uplink));
        int[] twinOf = twins(degraded);
        int s = degraded.index().switchId(guid);
        assertThat(twinOf[s]).isNegative();
        for (int t = 0; t < twinOf.length; t++) {
            assertThat(twinOf[t]).as("nobody copies the damaged leaf").isNotEqualTo(s);
        }
    }
}
