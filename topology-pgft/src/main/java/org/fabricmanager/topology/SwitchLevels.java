package org.fabricmanager.topology;

import java.util.Arrays;

/**
 * Levels of the switches of a fabric as a fat tree sees them: level 1 for leaves (switches with end
 * nodes), then breadth-first hop distance from the leaves plus one; 0 for switches no leaf reaches.
 *
 * <p>With an expected PGFT, three corrections make degraded fabrics come out right: a switch with
 * nodes that cannot be a leaf (too few ports, or more surplus switch neighbours than nodes) is not
 * taken as one (a node plugged into a spine); a switch without nodes that only reaches switches of level 2 in one
 * pod with room for a leaf (and enough ports for one) is a leaf whose nodes are all gone; and a switch above the top level whose
 * neighbours all sit one level below it has lost its down links, so it goes back under them (if
 * it has the ports for that level).
 */
final class SwitchLevels {
    /** Level per switch id; 0 = not reached from any leaf. */
    final int[] level;
    /** Switches that have end nodes but were not taken as leaves. */
    final boolean[] nodesOnNonLeaf;

    private SwitchLevels(int[] level, boolean[] nodesOnNonLeaf) {
        this.level = level;
        this.nodesOnNonLeaf = nodesOnNonLeaf;
    }

    /** Levels for {@code index}; {@code spec} (nullable) enables the corrections. */
    static SwitchLevels of(FabricIndex index, PgftSpec spec) {
        int n = index.switchCount();
        boolean[] suspect = new boolean[n];
        int[] sources = new int[index.leafCount()];
        int k = 0;
        for (int s : index.leaves()) {
            if (spec != null && spec.h() >= 2 && cannotBeLeaf(index, spec, s)) {
                suspect[s] = true;
            } else {
                sources[k++] = s;
            }
        }
        int[] rank = Ranking.fromSources(index, Arrays.copyOf(sources, k));
        int[] level = new int[n];
        for (int s = 0; s < n; s++) {
            level[s] = rank[s] == Ranking.UNREACHED ? 0 : rank[s] + 1;
        }
        if (spec != null && spec.h() >= 2) {
            findLeavesWithoutNodes(index, spec, level);
            foldOverhangs(index, spec, level);
        }
        return new SwitchLevels(level, suspect);
    }

    /**
     * A switch with nodes is still a leaf when it is miswired (a crossed cable adds a neighbour or
     * two); it is not one when it has fewer ports than a leaf needs, or more surplus switch
     * neighbours than it has nodes (a spine with a stray node).
     */
    private static boolean cannotBeLeaf(FabricIndex index, PgftSpec spec, int s) {
        if (index.switchPorts(s) < spec.radix(1)) {
            return true;
        }
        int surplus = index.groupCount(s) - spec.w(2);
        if (surplus <= 0) {
            return false;
        }
        int nodes = 0;
        for (int node : index.peerNodes(s)) {
            if (node != FabricIndex.NONE) {
                nodes++;
            }
        }
        return nodes < surplus;
    }

    private static void findLeavesWithoutNodes(FabricIndex index, PgftSpec spec, int[] level) {
        int n = index.switchCount();
        UnionFind pods = new UnionFind(n);
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        for (int s = 0; s < n; s++) {
            if (level[s] != 1) {
                continue;
            }
            for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                if (level[neighbours[g]] == 2) {
                    pods.union(s, neighbours[g]);
                }
            }
        }
        int[] leavesInPod = new int[n];
        for (int s = 0; s < n; s++) {
            if (level[s] == 1) {
                leavesInPod[pods.find(s)]++;
            }
        }
        for (int s = 0; s < n; s++) {
            if (level[s] < 3 || index.isLeaf(s) || index.groupCount(s) > spec.w(2)
                    || index.switchPorts(s) < spec.radix(1)) {
                continue;
            }
            // A top switch's children sit in distinct pods, so one left is ambiguous: keep it where
            // it is unless it has too few ports to be at that level.
            if (index.groupCount(s) < 2 && level[s] <= spec.h() && index.switchPorts(s) >= spec.radix(level[s])) {
                continue;
            }
            int pod = -1;
            boolean onePod = true;
            for (int g = groupStart[s]; g < groupStart[s + 1] && onePod; g++) {
                int t = neighbours[g];
                if (level[t] != 2) {
                    onePod = false;
                } else if (pod == -1) {
                    pod = pods.find(t);
                } else if (pods.find(t) != pod) {
                    onePod = false;
                }
            }
            if (onePod && pod != -1 && leavesInPod[pod] < spec.m(2)) {
                level[s] = 1;
                leavesInPod[pod]++;
            }
        }
    }

    private static void foldOverhangs(FabricIndex index, PgftSpec spec, int[] level) {
        int h = spec.h();
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        boolean changed = true;
        for (int pass = 0; pass < h && changed; pass++) {
            changed = false;
            for (int s = 0; s < level.length; s++) {
                if (level[s] <= h) {
                    continue;
                }
                int common = -1;
                for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                    int l = level[neighbours[g]];
                    if (common == -1) {
                        common = l;
                    } else if (common != l) {
                        common = 0;
                    }
                }
                if (common >= 2 && common - 1 <= h && common - 1 != level[s]
                        && index.switchPorts(s) >= spec.radix(common - 1)) {
                    level[s] = common - 1;
                    changed = true;
                }
            }
        }
    }
}
