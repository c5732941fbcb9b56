package org.fabricmanager.opensm;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;

/**
 * {@link SwitchLidRoutes} kept from one fabric to the next, for OpenSM's routing passes: most passes follow a change
 * of a few links, and rebuilding every switch's route to every switch then costs tens of milliseconds at hundreds of
 * switches. For each target switch the distances of the last fabric are checked where links changed: when they are
 * still shortest-path distances in the new fabric (every switch still has a neighbour one hop closer, no link offers a
 * shorter way), only the changed switches choose their port again; otherwise that target is searched afresh. The
 * routes are exactly {@link SwitchLidRoutes#compute}'s for the same fabric and LIDs. Not thread-safe: one caller.
 */
public final class SwitchLidRouter {
    /** Above this share of changed switches, searching every target afresh is as cheap. */
    private static final int FULL_BELOW_ONE_IN = 8;

    private long[] guids = new long[0];
    private int[] lids = new int[0];
    private int[][] peers = new int[0][];
    /** {@code distance[t][s]}: hops from {@code s} to {@code t}, -1 when unreachable. */
    private int[][] distance = new int[0][];
    private byte[][] ports = new byte[0][];
    private int searched;

    /**
     * The routes of {@code index} with switch LIDs {@code lids}, as {@link SwitchLidRoutes#compute} gives them. Rows of
     * targets whose routes did not change are the previous call's arrays: callers read them and never write.
     */
    public byte[][] routes(FabricIndex index, int[] lids) {
        int n = index.switchCount();
        searched = 0;
        if (!sameSwitches(index, lids)) {
            guids = new long[n];
            for (int s = 0; s < n; s++) {
                guids[s] = index.switchGuid(s);
            }
            this.lids = lids.clone();
            peers = copyPeers(index);
            distance = new int[n][n];
            ports = new byte[n][];
            for (int t = 0; t < n; t++) {
                search(t);
            }
            return ports.clone();
        }
        int[] changed = changedSwitches(index);
        if (changed.length == 0) {
            return ports.clone();
        }
        for (int s : changed) {
            peers[s] = index.peerSwitches(s).clone();
        }
        boolean full = changed.length * FULL_BELOW_ONE_IN > n;
        for (int t = 0; t < n; t++) {
            if (full || !stillShortest(t, changed)) {
                search(t);
            } else {
                choose(t, changed);
            }
        }
        return ports.clone();
    }

    /** How many targets the last call searched afresh (the others kept their distances). */
    public int searched() {
        return searched;
    }

    private boolean sameSwitches(FabricIndex index, int[] lids) {
        if (index.switchCount() != guids.length || !Arrays.equals(lids, this.lids)) {
            return false;
        }
        for (int s = 0; s < guids.length; s++) {
            if (index.switchGuid(s) != guids[s]) {
                return false;
            }
        }
        return true;
    }

    private int[] changedSwitches(FabricIndex index) {
        int[] changed = new int[guids.length];
        int count = 0;
        for (int s = 0; s < guids.length; s++) {
            if (!Arrays.equals(index.peerSwitches(s), peers[s])) {
                changed[count++] = s;
            }
        }
        return Arrays.copyOf(changed, count);
    }

    private static int[][] copyPeers(FabricIndex index) {
        int[][] out = new int[index.switchCount()][];
        for (int s = 0; s < out.length; s++) {
            out[s] = index.peerSwitches(s).clone();
        }
        return out;
    }

    /**
     * Whether the distances towards {@code t} hold in the new fabric: only the changed switches' links differ, so it
     * is enough that each of them still has a neighbour one hop closer and no link of theirs is a shortcut. Links are
     * symmetric and both ends of a changed link are changed switches, so both directions are looked at.
     */
    private boolean stillShortest(int t, int[] changed) {
        int[] d = distance[t];
        for (int y : changed) {
            int dy = d[y];
            boolean closer = y == t || dy < 0;
            int[] around = peers[y];
            for (int p = 1; p < around.length; p++) {
                int v = around[p];
                if (v == FabricIndex.NONE) {
                    continue;
                }
                int dv = d[v];
                if (dv >= 0 && (dy < 0 || dy > dv + 1)) {
                    return false;
                }
                closer |= dv == dy - 1;
            }
            if (!closer) {
                return false;
            }
        }
        return true;
    }

    /** Distances towards {@code t} unchanged: the changed switches choose their port again, the row copied on write. */
    private void choose(int t, int[] changed) {
        byte[] row = ports[t];
        byte[] out = row;
        for (int s : changed) {
            if (s == t) {
                continue;
            }
            byte port = (byte) SwitchLidRoutes.choose(peers[s], distance[t], s, lids[t]);
            if (port != row[s]) {
                if (out == row) {
                    out = row.clone();
                }
                out[s] = port;
            }
        }
        ports[t] = out;
    }

    /** Breadth-first search from {@code t} and every switch's choice, into a new row. */
    private void search(int t) {
        searched++;
        ports[t] = SwitchLidRoutes.route(peers, t, lids[t], distance[t]);
    }
}
