package org.fabricmanager.routing.dmodc.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.Test;

/**
 * {@link LeafDestinations#stride}: non-zero exactly when every leaf's destinations are the next {@code k} indices
 * after the previous leaf's, on generated fabrics (intact and degraded, where it holds) and irregular ones (indices
 * with gaps and shuffled, nodes unplugged, where it must not).
 */
class LeafDestinationsTest {

    @Test
    void strideIsTheNodesPerLeafExactlyWhenLeavesAreNumberedOneAfterAnother() {
        List<TestFabrics.Degraded> fabrics = new ArrayList<>(TestFabrics.degradations(2));
        fabrics.addAll(TestFabrics.irregular(12));
        int regular = 0;
        int other = 0;
        for (TestFabrics.Degraded d : fabrics) {
            FabricIndex index = d.fabric().index();
            LeafDestinations destinations = LeafDestinations.of(index);
            int expected = regularStride(destinations, index.leafCount());
            assertThat(destinations.stride()).as(d.description()).isEqualTo(expected);
            if (expected > 0) {
                regular++;
            } else {
                other++;
            }
        }
        // both kinds were drawn
        assertThat(regular).isPositive();
        assertThat(other).isPositive();
    }

    /** The stride by its definition, from the leaves' destination lists. */
    private static int regularStride(LeafDestinations destinations, int leaves) {
        if (leaves == 0) {
            return 0;
        }
        int k = destinations.start(1) - destinations.start(0);
        int next = k == 0 ? -1 : destinations.destination(destinations.start(0));
        for (int leaf = 0; leaf < leaves && k > 0; leaf++) {
            if (destinations.start(leaf + 1) - destinations.start(leaf) != k) {
                return 0;
            }
            for (int i = destinations.start(leaf); i < destinations.start(leaf + 1); i++) {
                if (destinations.destination(i) != next++) {
                    return 0;
                }
            }
        }
        return k;
    }
}
