package org.fabricmanager.routing.baseline;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.topology.FabricIndex;

/** Builds a {@link Validity} by checking every ordered pair of distinct leaves. */
final class LeafPairs {
    /** Whether leaf number {@code from} has a route to leaf number {@code to}. */
    interface Reach {
        boolean reachable(int from, int to);
    }

    private LeafPairs() {
    }

    static Validity validity(FabricIndex index, Reach reach) {
        int[] leaves = index.leaves();
        long unreachable = 0;
        List<Validity.LeafPair> examples = new ArrayList<>();
        for (int a = 0; a < leaves.length; a++) {
            for (int b = 0; b < leaves.length; b++) {
                if (a != b && !reach.reachable(a, b)) {
                    unreachable++;
                    if (examples.size() < Validity.MAX_EXAMPLES) {
                        examples.add(new Validity.LeafPair(index.switchGuid(leaves[a]), index.switchGuid(leaves[b])));
                    }
                }
            }
        }
        return new Validity(unreachable, examples);
    }
}
