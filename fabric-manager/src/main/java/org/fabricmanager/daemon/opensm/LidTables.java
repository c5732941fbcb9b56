package org.fabricmanager.daemon.opensm;

import java.util.Arrays;
import org.fabricmanager.opensm.OpenSmLfts;
import org.fabricmanager.opensm.SwitchLidRouter;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.LidPlan;

/**
 * Every switch's table by LID as {@link OpenSmLfts#byLid} gives it, kept from one answer to the next: when the switches,
 * LIDs and leaves are those of the last answer, only the entries whose handed port or switch route changed are worked
 * out again (a cable's loss at 4,096 nodes changes a small share of the 3.7 million entries: docs/opensm.md,
 * "Live: the daemon as OpenSM's engine against ftree and updn"), where building them all is slow before the JIT has
 * compiled it. Rows that did not change are the last answer's arrays; callers read them and never write. One caller
 * at a time.
 */
final class LidTables {
    private final SwitchLidRouter router = new SwitchLidRouter();
    private long[] guids;
    /** Per destination index: its LID (0: none in this fabric) and its leaf switch; per switch: its LID. */
    private int[] lidOfDest;
    private int[] leafOfDest;
    private int[] lidOfSwitch;
    private int maxLid;
    /** Per leaf switch: the destinations attached to it. */
    private int[][] destsByLeaf;
    private byte[][] rows;
    private byte[][] routes;
    private byte[][] byLid;
    private boolean lastUpdated;

    /**
     * The tables by LID of {@code fabric}: {@code rows[s]} is switch {@code s}'s port by destination index as handed
     * (every row as long as the others, never written afterwards: a row that is the same array as in the last call is
     * taken as unchanged), {@code guids[s]} its GUID.
     */
    byte[][] tables(Fabric fabric, long[] guids, byte[][] rows, LidPlan lids) {
        FabricIndex index = fabric.index();
        int[] switchLids = new int[index.switchCount()];
        for (int s = 0; s < switchLids.length; s++) {
            switchLids[s] = lids.lid(index.switchGuid(s)).orElse(0);
        }
        int destinations = rows.length == 0 ? 0 : rows[0].length;
        int[] destLids = new int[destinations];
        int[] leaves = new int[destinations];
        Arrays.fill(leaves, FabricIndex.NONE);
        for (int pos = 0; pos < index.nodeCount(); pos++) {
            int d = index.nodeIndex(pos);
            if (d < destinations) {
                // an end port's extra LIDs (LMC > 0) are its base LID plus the position's path bits
                long guid = index.nodeGuid(pos);
                int bits = index.pathBits(pos);
                destLids[d] = bits < lids.lidCount(guid) ? lids.lid(guid).map(l -> l + bits).orElse(0) : 0;
                leaves[d] = index.nodeLeaf(pos);
            }
        }
        byte[][] newRoutes = router.routes(index, switchLids);
        boolean same = byLid != null && Arrays.equals(guids, this.guids) && maxLid == lids.maxLid()
                && Arrays.equals(switchLids, lidOfSwitch) && Arrays.equals(destLids, lidOfDest)
                && Arrays.equals(leaves, leafOfDest) && destinations == lidOfDest.length;
        if (same) {
            byLid = update(rows, newRoutes);
        } else {
            ForwardingTables tables = ForwardingTables.ofRows(guids, rows, destinations);
            byLid = OpenSmLfts.byLid(fabric, tables, newRoutes, lids);
            this.guids = guids.clone();
            lidOfSwitch = switchLids;
            lidOfDest = destLids;
            leafOfDest = leaves;
            maxLid = lids.maxLid();
            destsByLeaf = byLeaf(leaves, index.switchCount());
        }
        lastUpdated = same;
        this.rows = rows;
        routes = newRoutes;
        return byLid.clone();
    }

    /** Whether the last tables were updated from the answer before (else built whole). */
    boolean lastUpdated() {
        return lastUpdated;
    }

    /** How many switches' routes to switches the last tables searched afresh. */
    int switchesSearched() {
        return router.searched();
    }

    /** The last tables with the entries of changed handed ports and changed switch routes worked out again. */
    private byte[][] update(byte[][] newRows, byte[][] newRoutes) {
        byte[][] out = byLid.clone();
        for (int s = 0; s < newRows.length; s++) {
            byte[] before = rows[s];
            byte[] after = newRows[s];
            if (before == after) {
                continue; // the session's table as handed before
            }
            for (int d = mismatch(before, after, 0, after.length); d < after.length;
                 d = mismatch(before, after, d + 1, after.length)) {
                if (lidOfDest[d] != 0) {
                    set(out, s, lidOfDest[d], nodePort(after[d], newRoutes, d, s));
                }
            }
        }
        for (int t = 0; t < newRoutes.length; t++) {
            byte[] before = routes[t];
            byte[] after = newRoutes[t];
            if (before == after) {
                continue;
            }
            for (int s = mismatch(before, after, 0, after.length); s < after.length;
                 s = mismatch(before, after, s + 1, after.length)) {
                if (lidOfSwitch[t] != 0) {
                    set(out, s, lidOfSwitch[t], after[s]);
                }
                // the nodes of leaf t that switch s does not route: towards the leaf by the switch rule
                for (int d : destsByLeaf[t]) {
                    if (lidOfDest[d] != 0 && (newRows[s][d] & 0xff) == ForwardingTables.NO_ROUTE) {
                        set(out, s, lidOfDest[d], after[s]);
                    }
                }
            }
        }
        return out;
    }

    /** The entry of destination {@code d} at switch {@code s}, as {@link OpenSmLfts#byLid} sets it. */
    private int nodePort(byte handed, byte[][] newRoutes, int d, int s) {
        int port = handed & 0xff;
        if (port == ForwardingTables.NO_ROUTE && leafOfDest[d] != FabricIndex.NONE) {
            port = newRoutes[leafOfDest[d]][s] & 0xff;
        }
        return port;
    }

    /** Writes {@code port} at {@code lid} of switch {@code s}'s row, copying the last answer's row first. */
    private void set(byte[][] out, int s, int lid, int port) {
        if ((out[s][lid] & 0xff) == port) {
            return;
        }
        if (out[s] == byLid[s]) {
            out[s] = out[s].clone();
        }
        out[s][lid] = (byte) port;
    }

    private static int[][] byLeaf(int[] leaves, int switches) {
        int[] count = new int[switches];
        for (int leaf : leaves) {
            if (leaf != FabricIndex.NONE) {
                count[leaf]++;
            }
        }
        int[][] out = new int[switches][];
        for (int s = 0; s < switches; s++) {
            out[s] = new int[count[s]];
            count[s] = 0;
        }
        for (int d = 0; d < leaves.length; d++) {
            if (leaves[d] != FabricIndex.NONE) {
                out[leaves[d]][count[leaves[d]]++] = d;
            }
        }
        return out;
    }

    /** The first index from {@code from} below {@code to} where the rows differ, else {@code to}. */
    static int mismatch(byte[] a, byte[] b, int from, int to) {
        int at = Arrays.mismatch(a, from, to, b, from, to);
        return at < 0 ? to : from + at;
    }
}
