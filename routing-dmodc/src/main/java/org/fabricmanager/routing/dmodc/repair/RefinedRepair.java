package org.fabricmanager.routing.dmodc.repair;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.topology.FabricIndex;

/**
 * A repair whose changed entries take a refined full routing's ports: the entries a repair moved away from the
 * base (the tables it repaired) go where the engine's own full routing of the fabric now sends them, the others keep
 * the base's. The same entries change as in the repair (fewer where the full routing keeps the base's port), so the
 * churn stays at the repair's; the routes that moved follow the full routing, so the balance is near that
 * routing's (docs/routing.md, "Repairs refined").
 *
 * <p>Both tables step to a strictly closer neighbour at every entry, so any mix of them does too: the result is
 * valid and deadlock-free as a repair is.
 */
public final class RefinedRepair {
    /** Switches a worker takes at a time. */
    private static final int GRAIN = 16;

    private RefinedRepair() {
    }

    /** The refined tables and the entries that took the full routing's port where the repair's differs. */
    public record Result(ForwardingTables tables, long refined) {
    }

    /**
     * {@code repaired} (a repair of {@code base} for {@code next}) with every entry that differs from {@code base}'s
     * (the switch's row there by GUID; a switch {@code base} lacks: every entry) set to {@code full}'s, a routing of
     * {@code next} ({@code guids}: its switches'); rows with nothing to take are shared with {@code repaired}.
     */
    public static Result mix(FabricIndex next, long[] guids, ForwardingTables base, ForwardingTables repaired,
                             ForwardingTables full, RoutingPool pool) {
        int switches = next.switchCount();
        int destinations = next.destinationCount();
        int[] baseRow = TableRepair.rowsByGuid(next, base);
        boolean sameWidth = base.destinationCount() == destinations;
        byte[][] rows = new byte[switches][];
        long[] taken = new long[switches];
        pool.forRange(switches, GRAIN, (worker, from, to) -> {
            for (int s = from; s < to; s++) {
                int b = sameWidth ? baseRow[s] : -1;
                byte[] row = null;
                // only where the two differ (a vectorised search between them: most entries agree, and at 65,536
                // nodes an entry-by-entry pass over the 335 MB took most of the refinement's time)
                for (int d = repaired.mismatch(s, full, s, 0); d >= 0; d = repaired.mismatch(s, full, s, d + 1)) {
                    int port = repaired.port(s, d);
                    if (b < 0 || port != base.port(b, d)) {
                        if (row == null) {
                            row = repaired.copyRow(s);
                        }
                        row[d] = (byte) full.port(s, d);
                        taken[s]++;
                    }
                }
                rows[s] = row;
            }
        });
        long total = 0;
        int[] reuse = new int[switches];
        for (int s = 0; s < switches; s++) {
            total += taken[s];
            reuse[s] = rows[s] == null ? s : -1;
        }
        if (total == 0) {
            return new Result(repaired, 0);
        }
        return new Result(ForwardingTables.ofRows(guids, rows, destinations, repaired, reuse), total);
    }
}
