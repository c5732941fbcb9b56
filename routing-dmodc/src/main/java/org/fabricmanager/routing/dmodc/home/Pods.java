package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;

/**
 * The pods of a ranked fabric: the sets of leaves (rank 0) and level-1 switches (rank 1) joined by the links
 * between those two ranks, each pod's level-1 switches in id order. In a PGFT a pod is a level-2 subtree, whose
 * leaves are each linked to all its level-1 switches while intact ({@link #complete}).
 */
final class Pods {
    private final int[] podOf;
    private final int[] slot;
    private final int[][] members;
    private final int[][] leaves;
    private final boolean[] complete;
    private final int[] levelOne;

    private Pods(int[] podOf, int[] slot, int[][] members, int[][] leaves, boolean[] complete, int[] levelOne) {
        this.podOf = podOf;
        this.slot = slot;
        this.members = members;
        this.leaves = leaves;
        this.complete = complete;
        this.levelOne = levelOne;
    }

    /** The pods of {@code index} ranked by {@code ranks} (leaves 0; negative: unranked, in no pod). */
    static Pods of(FabricIndex index, int[] ranks) {
        int switches = index.switchCount();
        int[] parent = new int[switches];
        for (int s = 0; s < switches; s++) {
            parent[s] = s;
        }
        for (int s = 0; s < switches; s++) {
            if (ranks[s] != 0) {
                continue;
            }
            for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
                int u = index.groupNeighbour(g);
                if (ranks[u] == 1) {
                    parent[find(parent, s)] = find(parent, u);
                }
            }
        }
        int[] podOf = new int[switches];
        Arrays.fill(podOf, -1);
        int[] podOfRoot = new int[switches];
        Arrays.fill(podOfRoot, -1);
        int pods = 0;
        int levelOneCount = 0;
        for (int s = 0; s < switches; s++) {
            if (ranks[s] == 1) {
                int root = find(parent, s);
                if (podOfRoot[root] < 0) {
                    podOfRoot[root] = pods++;
                }
                podOf[s] = podOfRoot[root];
                levelOneCount++;
            }
        }
        int[] memberCount = new int[pods];
        int[] leafCount = new int[pods];
        for (int s = 0; s < switches; s++) {
            if (ranks[s] == 0 && podOfRoot[find(parent, s)] >= 0) {
                podOf[s] = podOfRoot[find(parent, s)];
                leafCount[podOf[s]]++;
            } else if (ranks[s] == 1) {
                memberCount[podOf[s]]++;
            }
        }
        int[][] members = new int[pods][];
        int[][] leaves = new int[pods][];
        for (int p = 0; p < pods; p++) {
            members[p] = new int[memberCount[p]];
            leaves[p] = new int[leafCount[p]];
        }
        int[] slot = new int[switches];
        Arrays.fill(slot, -1);
        int[] levelOne = new int[levelOneCount];
        Arrays.fill(memberCount, 0);
        Arrays.fill(leafCount, 0);
        for (int s = 0, i = 0; s < switches; s++) {
            if (ranks[s] == 1) {
                slot[s] = memberCount[podOf[s]]++;
                members[podOf[s]][slot[s]] = s;
                levelOne[i++] = s;
            } else if (ranks[s] == 0 && podOf[s] >= 0) {
                leaves[podOf[s]][leafCount[podOf[s]]++] = s;
            }
        }
        boolean[] complete = new boolean[pods];
        for (int p = 0; p < pods; p++) {
            for (int s : leaves[p]) {
                int linked = 0;
                for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
                    if (podOf[index.groupNeighbour(g)] == p && ranks[index.groupNeighbour(g)] == 1) {
                        linked++;
                    }
                }
                complete[p] |= linked == members[p].length;
            }
        }
        return new Pods(podOf, slot, members, leaves, complete, levelOne);
    }

    private static int find(int[] parent, int s) {
        while (parent[s] != s) {
            parent[s] = parent[parent[s]];
            s = parent[s];
        }
        return s;
    }

    int count() {
        return members.length;
    }

    /** Pod {@code p}'s level-1 switches, in id order. */
    int[] members(int p) {
        return members[p];
    }

    /** Pod {@code p}'s leaf switches, in id order. */
    int[] leaves(int p) {
        return leaves[p];
    }

    /** The pod of leaf or level-1 switch {@code s}, or -1. */
    int podOf(int s) {
        return podOf[s];
    }

    /** The position of level-1 switch {@code s} in its pod's {@link #members}, or -1 for any other switch. */
    int slot(int s) {
        return slot[s];
    }

    /** True when some leaf of pod {@code p} is linked to every level-1 switch of the pod. */
    boolean complete(int p) {
        return complete[p];
    }

    /** Every level-1 switch in a pod, in id order. */
    int[] levelOneSwitches() {
        return levelOne;
    }
}
