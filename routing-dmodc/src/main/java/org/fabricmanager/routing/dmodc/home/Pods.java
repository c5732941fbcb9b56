package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import java.util.BitSet;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.topology.FabricIndex;

/**
 * The pods of a ranked fabric above rank {@code r}: the sets of switches of ranks {@code r} (<em>lower</em>) and
 * {@code r + 1} (<em>upper</em>) joined by the links between those two ranks, each pod's upper switches in id
 * order. Above the leaves ({@code r = 0}) a PGFT's pod is a level-2 subtree, whose leaves are each linked to all
 * its level-1 switches while intact ({@link #regular}); above level 1 it is a plane: the level-1 switches of one
 * position in every subtree and the level-2 switches they share. A pod that misses upper switches the others have
 * keeps their positions empty where its ports tell which they are ({@link #placeByPorts}).
 */
final class Pods {
    private final int[] podOf;
    private final int[] slot;
    private final int[][] upper;
    private final int[][] lower;
    private final boolean[] regular;
    private final int[] present;

    private Pods(int[] podOf, int[] slot, int[][] upper, int[][] lower, boolean[] regular, int[] present) {
        this.podOf = podOf;
        this.slot = slot;
        this.upper = upper;
        this.lower = lower;
        this.regular = regular;
        this.present = present;
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
        int widest = 0;
        for (int p = 0; p < pods; p++) {
            for (int s : lower[p]) {
                int linked = 0;
                for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
                    if (podOf[index.groupNeighbour(g)] == p && ranks[index.groupNeighbour(g)] == r + 1) {
                        linked++;
                    }
                }
                widest = Math.max(widest, linked);
            }
        }
        boolean[] regular = new boolean[pods];
        for (int p = 0; p < pods; p++) {
            regular[p] = upper[p].length <= widest;
        }
        int[] present = new int[pods];
        for (int p = 0; p < pods; p++) {
            present[p] = upper[p].length;
        }
        placeByPorts(index, ranks, r, podOf, slot, upper, lower);
        return new Pods(podOf, slot, upper, lower, regular, present);
    }

    /**
     * Gives a pod that has fewer upper switches than the rank's up ports name their positions, with gaps where
     * switches are missing (a dead one, or one that lost every link to the pod): the rank's positions are the
     * distinct first (lowest) ports of the groups from rank {@code r} up, in order (a PGFT cabled as docs/formats.md numbers
     * it reaches its {@code b}-th parent on its {@code b}-th up port), used only when there are as many as the widest
     * pod has upper switches (a cable on an odd port would otherwise give every other pod a gap). Why: a pod that lost one of its 16 upper
     * switches taken as a pod of 15 maps every destination to another home ({@code ⌊d/Π⌋ mod 15}), so two
     * destinations' traffic shares one link down; with the gap, only the dead switch's homes move. A pod keeps its
     * upper switches in id order, no gap, unless every one of them is reached on one port from all its lower
     * switches, no two on the same, in ascending order: then the gaps are where the missing ones were.
     */
    private static void placeByPorts(FabricIndex index, int[] ranks, int r, int[] podOf, int[] slot, int[][] upper,
            int[][] lower) {
        BitSet ports = new BitSet();
        int widest = 0;
        for (int p = 0; p < upper.length; p++) {
            widest = Math.max(widest, upper[p].length);
            for (int s : lower[p]) {
                for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
                    if (ranks[index.groupNeighbour(g)] == r + 1) {
                        ports.set(index.groupPort(g, 0));
                    }
                }
            }
        }
        int expected = ports.cardinality();
        if (expected > Long.SIZE || expected != widest) {
            return;
        }
        int[] position = new int[ports.length()];
        for (int port = ports.nextSetBit(0), i = 0; port >= 0; port = ports.nextSetBit(port + 1), i++) {
            position[port] = i;
        }
        for (int p = 0; p < upper.length; p++) {
            if (upper[p].length < expected) {
                int[] placed = positions(index, ranks, r, p, podOf, slot, upper[p], lower[p], position, expected);
                if (placed != null) {
                    upper[p] = placed;
                    for (int i = 0; i < placed.length; i++) {
                        if (placed[i] >= 0) {
                            slot[placed[i]] = i;
                        }
                    }
                }
            }
        }
    }

    /**
     * Pod {@code p}'s upper switches ({@code members}, in id order) at the positions their ports name, {@code -1}
     * in the gaps; {@code null} when the ports do not name one ascending position per switch.
     */
    private static int[] positions(FabricIndex index, int[] ranks, int r, int p, int[] podOf, int[] slot,
            int[] members, int[] lower, int[] position, int expected) {
        int[] at = new int[members.length];
        Arrays.fill(at, -1);
        for (int s : lower) {
            for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
                int u = index.groupNeighbour(g);
                if (ranks[u] != r + 1 || podOf[u] != p) {
                    continue;
                }
                int i = slot[u];
                int pos = position[index.groupPort(g, 0)];
                if (at[i] >= 0 && at[i] != pos) {
                    return null;
                }
                at[i] = pos;
            }
        }
        for (int i = 0; i < at.length; i++) {
            if (at[i] < 0 || i > 0 && at[i] <= at[i - 1]) {
                return null;
            }
        }
        int[] placed = new int[expected];
        Arrays.fill(placed, -1);
        for (int i = 0; i < at.length; i++) {
            placed[at[i]] = members[i];
        }
        return placed;
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

    /**
     * Pod {@code p}'s upper switches by position: in id order, with {@code -1} where a pod placed by its ports
     * ({@link #placeByPorts}) misses one.
     */
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

    /** The number of upper switches pod {@code p} has (its positions less its gaps). */
    int present(int p) {
        return present[p];
    }

    /**
     * True when pod {@code p} has no more upper switches than the most any lower switch of the rank is linked to in
     * its own pod: a PGFT's, however degraded (at 10% of the links lost, many pods of 32 level-1 switches keep no leaf
     * linked to all of them). A lower switch cabled to two pods merges them into one about
     * twice as wide as any switch's links, which is not.
     */
    boolean regular(int p) {
        return regular[p];
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
            if (switches[i] < 0) {
                continue;
            }
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
