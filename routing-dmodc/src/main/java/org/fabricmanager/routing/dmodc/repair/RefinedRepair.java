package org.fabricmanager.routing.dmodc.repair;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.topology.FabricIndex;

/**
 * A repair whose changed entries take a refined full routing's ports: the entries a repair moved away from the
 * base (the tables it repaired) go where the engine's own full routing of the fabric now sends them, the others keep
 * the base's. The same entries change as in the repair (fewer where the full routing keeps the base's port), so the
 * churn stays at the repair's; the routes that moved follow the full routing, so the balance is near that
 * routing's (docs/routing.md, "Repairs refined"). A {@link TableMix}, valid and deadlock-free as a repair is.
 */
public final class RefinedRepair {
    private RefinedRepair() {
    }

    /**
     * {@code repaired} (a repair of {@code base} for {@code next}) with every entry that differs from {@code base}'s
     * (the switch's row there by GUID; a switch {@code base} lacks, or a destination index beyond its width: every
     * entry) set to {@code full}'s, a routing of
     * {@code next}; rows with nothing to take are shared with {@code repaired}. The entries taken are those where
     * {@code full}'s port differs from the repair's.
     */
    public static TableMix.Result mix(FabricIndex next, ForwardingTables base, ForwardingTables repaired,
                                      ForwardingTables full, RoutingPool pool) {
        int[] baseRow = TableRepair.rowsByGuid(next, base);
        // destination indices are stable (an end node keeps its index), so the base's entry for index d is the same
        // node's even where the widths differ: the nodes of the highest indices gone (a leaf lost) or new ones
        int baseWidth = base.destinationCount();
        return TableMix.of(repaired, full, pool, (s, row) -> {
            int b = baseRow[s];
            // only where the two differ: a vectorised search between them, as most entries agree and an
            // entry-by-entry pass over a large fabric's tables took most of the refinement's time
            for (int d = repaired.mismatch(s, full, s, 0); d >= 0; d = repaired.mismatch(s, full, s, d + 1)) {
                if (b < 0 || d >= baseWidth || repaired.port(s, d) != base.port(b, d)) {
                    row.take(d);
                }
            }
        });
    }
}
