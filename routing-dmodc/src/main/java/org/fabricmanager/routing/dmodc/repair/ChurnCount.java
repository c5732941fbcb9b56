package org.fabricmanager.routing.dmodc.repair;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.TableChurn;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.topology.FabricIndex;

/**
 * Counts the {@link TableChurn} of a new routing against the tables in force: the entries that changed, and the
 * least any valid routing of the new fabric must change: the entries whose port leads into a failed element (a
 * port without a live link in the new fabric), those that lose every path (the destination's leaf has an infinite
 * cost from the switch, or the node left), those whose next hop loses every path (an infinite cost from the
 * neighbour: no up*&#47;down* route goes on from there) and those that gain a path. Rows of switches in both tables
 * are compared (by GUID); a row of a switch new in the new fabric counts its routed entries. Since a valid routing
 * changes every such entry, only the changed entries are examined: the cost is a comparison of the rows that are
 * not shared, plus a check per changed entry.
 */
public final class ChurnCount {
    private ChurnCount() {
    }

    /**
     * The churn from {@code before} to {@code after}, the tables of {@code next} (the same switches in the
     * same order) whose costs are {@code costs}. Taken back: the changed entries of a switch that had no row in
     * {@code before} (its routed entries), and those whose new port is one {@code before} routed nothing over from
     * that switch (a link that came back).
     */
    public static TableChurn between(ForwardingTables before, ForwardingTables after, FabricIndex next,
                                     CostTable costs, RoutingPool pool) {
        int switches = after.switchCount();
        int[] rowBefore = TableRepair.rowsByGuid(next, before);
        long[] changed = new long[switches];
        long[] forced = new long[switches];
        long[] taken = new long[switches];
        int length = Math.min(before.destinationCount(), after.destinationCount());
        pool.forRange(switches, 16, (worker, from, to) -> {
            for (int s = from; s < to; s++) {
                int b = rowBefore[s];
                if (b < 0) {
                    // a new switch: every routed entry is new, and any routing sets it
                    for (int d = 0; d < after.destinationCount(); d++) {
                        if (after.port(s, d) != ForwardingTables.NO_ROUTE) {
                            changed[s]++;
                            forced[s]++;
                            taken[s]++;
                        }
                    }
                    continue;
                }
                long[] used = null;
                for (int d = before.destinationCount() == after.destinationCount() ? after.mismatch(s, before, b, 0)
                        : 0; d >= 0 && d < after.destinationCount(); ) {
                    int old = d < length ? before.port(b, d) : ForwardingTables.NO_ROUTE;
                    int now = after.port(s, d);
                    if (old != now) {
                        changed[s]++;
                        if (used == null) {
                            used = portsUsed(before, b);
                        }
                        if (now != ForwardingTables.NO_ROUTE && (used[now >>> 6] & (1L << now)) == 0) {
                            taken[s]++;
                        }
                        if (mustChange(next, costs, s, d, old)) {
                            forced[s]++;
                        }
                    }
                    d = before.destinationCount() == after.destinationCount() ? after.mismatch(s, before, b, d + 1)
                            : d + 1;
                }
            }
        });
        long c = 0;
        long f = 0;
        long t = 0;
        for (int s = 0; s < switches; s++) {
            c += changed[s];
            f += forced[s];
            t += taken[s];
        }
        return new TableChurn(c, f, t);
    }

    /** The ports row {@code b} of {@code tables} routes some entry over, as a mask of 256 bits. */
    private static long[] portsUsed(ForwardingTables tables, int b) {
        long[] used = new long[4];
        byte[] row = tables.copyRow(b);
        for (byte e : row) {
            int port = e & 0xff;
            used[port >>> 6] |= 1L << port;
        }
        return used;
    }

    /** True when an entry that was {@code old} must change in any valid routing of {@code next}. */
    private static boolean mustChange(FabricIndex next, CostTable costs, int s, int d, int old) {
        boolean reachable = reachable(next, costs, s, d);
        if (old == ForwardingTables.NO_ROUTE) {
            return reachable;
        }
        if (!reachable || old > next.switchPorts(s)) {
            return true;
        }
        int neighbour = next.peerSwitches(s)[old];
        if (neighbour == FabricIndex.NONE) {
            return next.peerNodes(s)[old] == FabricIndex.NONE;
        }
        int leaf = next.nodeLeaf(next.nodeByDestination(d));
        return neighbour != leaf && !costs.isFinite(neighbour, next.leafNumber(leaf));
    }

    private static boolean reachable(FabricIndex next, CostTable costs, int s, int d) {
        if (d >= next.destinationCount()) {
            return false;
        }
        int pos = next.nodeByDestination(d);
        if (pos == FabricIndex.NONE || next.nodeLeaf(pos) == FabricIndex.NONE) {
            return false;
        }
        int leaf = next.nodeLeaf(pos);
        return leaf == s || costs.isFinite(s, next.leafNumber(leaf));
    }

}
