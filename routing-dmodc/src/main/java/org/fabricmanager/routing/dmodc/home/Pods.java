package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.topology.FabricIndex;

/**
 * The pods of a ranked fabric above rank {@code r}: the sets of switches of ranks {@code r} (<em>lower</em>) and
 * {@code r + 1} (<em>upper</em>) joined by the links between those two ranks, each pod's upper switches in id
 * order. Above the leaves ({@code r = 0}) a PGFT's pod is a level-2 subtree, whose leaves are each linked to all
 * its level-1 switches while intact ({@link #complete}); above level 1 it is a plane: the level-1 switches of one
 * position in every subtree and the level-2 switches they share.
 */
final class Pods {
    private final int[] podOf;
    private final int[] slot;
    private final int[][] upper;
    private final int[][] lower;
    private final boolean[] complete;

    private Pods(int[] podOf, int[] slot, int[][] upper, int[][] lower, boolean[] complete) {
        this.podOf = podOf;
        this.slot = slot;
        this.upper = upper;
        this.lower = lower;
        this.complete = complete;
    }

    /** The pods above rank {@code r} of {@code index} ranked by {@code ranks} (leaves 0; negative: unranked). */
    static Pods of(FabricIndex index, int[] ranks, int r) {
        int switches = index.switchCount();
        int[] parent = new int[switches];
        for (int s = 0; s < switches; s++) {
            parent[s] = s;
        }
        for (int s = 0; s < switches; s++) {
            if (ranks[s] != r) {
                continue;
            }
            for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
                int u = index.groupNeighbour(g);
                if (ranks[u] == r + 1) {
                    parent[find(parent, s)] = find(parent, u);
                }
            }
        }
        int[] podOf = new int[switches];
        Arrays.fill(podOf, -1);
        int[] podOfRoot = new int[switches];
        Arrays.fill(podOfRoot, -1);
        int pods = 0;
        for (int s = 0; s < switches; s++) {
            if (ranks[s] == r + 1) {
                int root = find(parent, s);
                if (podOfRoot[root] < 0) {
                    podOfRoot[root] = pods++;
                }
                podOf[s] = podOfRoot[root];
            }
        }
        int[] upperCounts = new int[pods];
        int[] lowerCounts = new int[pods];
        for (int s = 0; s < switches; s++) {
            if (ranks[s] == r && podOfRoot[find(parent, s)] >= 0) {
                podOf[s] = podOfRoot[find(parent, s)];
                lowerCounts[podOf[s]]++;
            } else if (ranks[s] == r + 1) {
                upperCounts[podOf[s]]++;
            }
        }
        int[][] upper = new int[pods][];
        int[][] lower = new int[pods][];
        for (int p = 0; p < pods; p++) {
            upper[p] = new int[upperCounts[p]];
            lower[p] = new int[lowerCounts[p]];
        }
        int[] slot = new int[switches];
        Arrays.fill(slot, -1);
        Arrays.fill(upperCounts, 0);
        Arrays.fill(lowerCounts, 0);
        for (int s = 0; s < switches; s++) {
            if (ranks[s] == r + 1) {
                slot[s] = upperCounts[podOf[s]]++;
                upper[podOf[s]][slot[s]] = s;
            } else if (ranks[s] == r && podOf[s] >= 0) {
                lower[podOf[s]][lowerCounts[podOf[s]]++] = s;
            }
        }
        boolean[] complete = new boolean[pods];
        for (int p = 0; p < pods; p++) {
            for (int s : lower[p]) {
                int linked = 0;
                for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
                    if (podOf[index.groupNeighbour(g)] == p && ranks[index.groupNeighbour(g)] == r + 1) {
                        linked++;
                    }
                }
                complete[p] |= linked == upper[p].length;
            }
        }
        return new Pods(podOf, slot, upper, lower, complete);
    }

    private static int find(int[] parent, int s) {
        while (parent[s] != s) {
            parent[s] = parent[parent[s]];
            s = parent[s];
        }
        return s;
    }

    int count() {
        return upper.length;
    }

    /** Pod {@code p}'s upper switches, in id order. */
    int[] upper(int p) {
        return upper[p];
    }

    /** Pod {@code p}'s lower switches, in id order. */
    int[] lower(int p) {
        return lower[p];
    }

    /** The pod of lower or upper switch {@code s}, or -1. */
    int podOf(int s) {
        return podOf[s];
    }

    /** The position of upper switch {@code s} in its pod's {@link #upper}, or -1 for any other switch. */
    int slot(int s) {
        return slot[s];
    }

    /** True when some lower switch of pod {@code p} is linked to every upper switch of the pod. */
    boolean complete(int p) {
        return complete[p];
    }

    /**
     * Per leaf number, pod {@code p}'s upper switches closest to that leaf (a bit per {@link #slot}, so at most
     * {@value Long#SIZE} of them) in the first {@code leaves} entries, their cost in the next {@code leaves}: one
     * pass along each one's row of {@code costs} (switch-major, {@code leaves} per switch).
     */
    long[] closest(int p, byte[] costs, int leaves) {
        int[] switches = upper[p];
        long[] reach = new long[2 * leaves];
        Arrays.fill(reach, leaves, 2 * leaves, CostTable.INFINITE);
        for (int i = 0; i < switches.length; i++) {
            int row = switches[i] * leaves;
            for (int l = 0; l < leaves; l++) {
                int cost = costs[row + l];
                if (cost < reach[leaves + l]) {
                    reach[leaves + l] = cost;
                    reach[l] = 1L << i;
                } else if (cost == reach[leaves + l] && cost != CostTable.INFINITE) {
                    reach[l] |= 1L << i;
                }
            }
        }
        return reach;
    }
}
