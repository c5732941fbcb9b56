package org.fabricmanager.routing.dmodc.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.plain.PlainDmodc;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Procedure 1's costs, computed over the up sets merged once for many switches ({@link UpSets}), are
 * exactly those of {@link PlainDmodc} leaf by leaf; and degraded fat trees mostly merge their up
 * sets, so that the comparison exercises them. (Moved from {@code SharedNeighbourRowsTest} with the
 * classes it tests.)
 */
class CostDividerTest {
    private static final RoutingPool POOL = new RoutingPool(2, "test");

    @AfterAll
    static void close() {
        POOL.close();
    }

    @Test
    void costsAreExactlyThoseOfProcedureOne() {
        List<TestFabrics.Degraded> fabrics = new ArrayList<>(TestFabrics.degradations(4));
        fabrics.addAll(TestFabrics.degradations(TestFabrics.MEDIUM_SPECS, 2));
        fabrics.addAll(TestFabrics.irregular(20));
        for (TestFabrics.Degraded d : fabrics) {
            FabricIndex index = d.fabric().index();
            CostTable costs = preprocess(index).costs();
            PlainDmodc reference = new PlainDmodc(d.fabric());
            for (int s = 0; s < index.switchCount(); s++) {
                for (int l = 0; l < index.leafCount(); l++) {
                    int expected = reference.cost(s, index.leaves()[l]);
                    int actual = costs.cost(s, l);
                    assertThat(actual == CostTable.INFINITE ? PlainDmodc.INF : actual)
                            .as("%s: switch %d, leaf %d", d, s, l).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void degradedFatTreesMostlyMergeTheirUpSets() {
        for (TestFabrics.Degraded d : TestFabrics.degradations(TestFabrics.MEDIUM_SPECS, 2)) {
            FabricIndex index = d.fabric().index();
            Ranks ranks = Ranks.of(index);
            Neighbours neighbours = Neighbours.of(index, ranks);
            UpSets sets = UpSets.of(index.switchCount(), neighbours);
            int merged = 0;
            for (int s = 0; s < index.switchCount(); s++) {
                merged += sets.setOf(s) >= 0 && sets.shared(sets.setOf(s)) ? 1 : 0;
            }
            int top = ranks.top();
            assertThat(merged).as(d.toString()).isGreaterThan((index.switchCount() - ranks.levelSize(top)) / 2);
        }
    }

    private static CostDivider.Result preprocess(FabricIndex index) {
        Ranks ranks = Ranks.of(index);
        return CostDivider.compute(index, ranks, Neighbours.of(index, ranks), POOL);
    }
}
