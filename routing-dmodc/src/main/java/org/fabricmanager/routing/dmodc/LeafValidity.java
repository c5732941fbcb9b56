package org.fabricmanager.routing.dmodc;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.topology.FabricIndex;

/**
 * Section 4.1 of the Dmodc paper: routing is valid if and only if every leaf has a finite cost to
 * every other leaf. Counts the ordered (source, destination) leaf pairs with an infinite cost and
 * names the first {@link Validity#MAX_EXAMPLES} in ascending GUID order.
 */
final class LeafValidity {
    private LeafValidity() {
    }

    static Validity check(FabricIndex index, CostTable costs, RoutingPool pool) {
        int[] leaves = index.leaves();
        int count = leaves.length;
        long[] unreachable = new long[count];
        pool.forRange(count, 64, (worker, from, to) -> {
            for (int a = from; a < to; a++) {
                int s = leaves[a];
                long missing = 0;
                for (int b = 0; b < count; b++) {
                    if (!costs.isFinite(s, b)) {
                        missing++;
                    }
                }
                unreachable[a] = missing;
            }
        });
        long total = 0;
        List<Validity.LeafPair> examples = new ArrayList<>();
        for (int a = 0; a < count; a++) {
            total += unreachable[a];
            for (int b = 0; b < count && unreachable[a] > 0 && examples.size() < Validity.MAX_EXAMPLES; b++) {
                if (!costs.isFinite(leaves[a], b)) {
                    examples.add(new Validity.LeafPair(index.switchGuid(leaves[a]), index.switchGuid(leaves[b])));
                }
            }
        }
        return total == 0 ? Validity.valid() : new Validity(total, examples);
    }
}
