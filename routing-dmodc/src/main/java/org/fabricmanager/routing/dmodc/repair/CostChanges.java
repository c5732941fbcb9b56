package org.fabricmanager.routing.dmodc.repair;

import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.topology.FabricIndex;

/**
 * Where the costs of a new fabric differ from those of an earlier snapshot whose leaves are not the same
 * (a leaf switch left or came): per switch of the new fabric, the leaves (new numbering) whose cost differs
 * from the same switch's cost to the same leaf (by GUID) before, every leaf for a switch or leaf that was
 * not there; {@code null} rows where nothing differs. What {@code CostDividerUpdate} gives when the leaves
 * are the same, found here by comparing the rows, which is a small part of a repair.
 */
public final class CostChanges {
    private CostChanges() {
    }

    /** The changed leaves of every switch of {@code next} against {@code before}. */
    public static long[][] between(FabricIndex before, CostTable beforeCosts, FabricIndex next, CostTable costs,
                                   RoutingPool pool) {
        int leaves = next.leafCount();
        int words = (leaves + 63) >>> 6;
        int[] leafBefore = new int[leaves];
        for (int l = 0; l < leaves; l++) {
            int b = before.switchId(next.switchGuid(next.leaves()[l]));
            leafBefore[l] = b == FabricIndex.NONE ? FabricIndex.NONE : before.leafNumber(b);
        }
        long[][] changed = new long[next.switchCount()][];
        pool.forRange(next.switchCount(), 64, (worker, from, to) -> {
            for (int s = from; s < to; s++) {
                int b = before.switchId(next.switchGuid(s));
                long[] bits = null;
                for (int l = 0; l < leaves; l++) {
                    if (b == FabricIndex.NONE || leafBefore[l] == FabricIndex.NONE
                            || beforeCosts.cost(b, leafBefore[l]) != costs.cost(s, l)) {
                        if (bits == null) {
                            bits = new long[words];
                        }
                        bits[l >>> 6] |= 1L << l;
                    }
                }
                changed[s] = bits;
            }
        });
        return changed;
    }
}
