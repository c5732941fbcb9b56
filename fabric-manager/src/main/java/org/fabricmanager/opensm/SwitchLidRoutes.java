package org.fabricmanager.opensm;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;

/**
 * Routes towards the switches themselves (their LID is port 0's): our engines route to end nodes
 * only, but management traffic (SA queries, performance counters) is addressed to switch LIDs.
 * The rule is MinHop: a switch forwards towards switch {@code t} on a port whose neighbour is one
 * hop closer to {@code t}; among those, candidate {@code lid(t) mod count} in ascending port
 * order, which spreads the switches over the parallel links. Every hop strictly reduces the
 * distance, so no route loops; an unreachable switch gets {@code 255}.
 */
public final class SwitchLidRoutes {
    private SwitchLidRoutes() {
    }

    /**
     * The output port of every switch {@code s} towards every switch {@code t}: {@code ports[t][s]},
     * 0 on the diagonal. {@code lids[t]} (the LID of switch {@code t}) chooses among equal paths.
     */
    public static byte[][] compute(FabricIndex index, int[] lids) {
        int n = index.switchCount();
        int[][] peers = new int[n][];
        for (int s = 0; s < n; s++) {
            peers[s] = index.peerSwitches(s);
        }
        byte[][] ports = new byte[n][];
        int[] distance = new int[n];
        for (int t = 0; t < n; t++) {
            ports[t] = route(peers, t, lids[t], distance);
        }
        return ports;
    }

    /**
     * Every switch's port towards switch {@code t} (LID {@code lid}) over the links {@code peers} (per switch, per port:
     * the neighbour switch or {@link FabricIndex#NONE}), leaving each switch's hops to {@code t} in {@code distance}
     * (-1 when unreachable).
     */
    static byte[] route(int[][] peers, int t, int lid, int[] distance) {
        int n = peers.length;
        int[] queue = new int[n];
        Arrays.fill(distance, -1);
        distance[t] = 0;
        int head = 0;
        int tail = 0;
        queue[tail++] = t;
        while (head < tail) {
            int u = queue[head++];
            int[] around = peers[u];
            for (int p = 1; p < around.length; p++) {
                int v = around[p];
                if (v != FabricIndex.NONE && distance[v] < 0) {
                    distance[v] = distance[u] + 1;
                    queue[tail++] = v;
                }
            }
        }
        byte[] row = new byte[n];
        for (int s = 0; s < n; s++) {
            row[s] = (byte) (s == t ? 0 : choose(peers[s], distance, s, lid));
        }
        return row;
    }

    /** Switch {@code s}'s port towards the target whose distances are {@code distance}: 255 when unreachable. */
    static int choose(int[] peers, int[] distance, int s, int lid) {
        if (distance[s] <= 0) {
            return 255;
        }
        int count = 0;
        for (int p = 1; p < peers.length; p++) {
            if (peers[p] != FabricIndex.NONE && distance[peers[p]] == distance[s] - 1) {
                count++;
            }
        }
        int pick = Math.floorMod(lid, count);
        for (int p = 1; p < peers.length; p++) {
            if (peers[p] != FabricIndex.NONE && distance[peers[p]] == distance[s] - 1 && pick-- == 0) {
                return p;
            }
        }
        throw new IllegalStateException("no closer neighbour from switch " + s);
    }
}
