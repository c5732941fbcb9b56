package org.fabricmanager.routing.dmodc.reuse;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.topology.FabricIndex;

/**
 * Leaves whose forwarding rows are a copy of another leaf's row but for two destination leaves. Two leaves
 * with the same port groups (same neighbours, same ports, in the same order), the same divider and the same
 * costs to every leaf but each other and themselves get, by formulas (1)-(4), the same ports for every
 * destination outside those two leaves: the candidates of a destination depend only on the switch's own cost
 * and its neighbours' costs there. A degraded fat tree leaves many such twins: the leaves of a pod that lost
 * no uplink (about a fifth of them at 5% of links removed). The first leaf of each class is routed; each
 * twin copies its row and recomputes the destinations of the two leaves where they differ.
 */
public final class LeafTwins {
    private static final int NONE = -1;

    private LeafTwins() {
    }

    /**
     * For each switch: the leaf whose row it copies, or {@code -1} (it is routed on its own). Leaves are
     * compared only with leaves of the same first and last neighbour and group count.
     */
    public static int[] of(FabricIndex index, CostTable costs, int[] divider) {
        int n = index.switchCount();
        int[] twinOf = new int[n];
        Arrays.fill(twinOf, NONE);
        int[] groupStart = index.groupStartArray();
        int[] neighbour = index.groupNeighbourArray();
        int[] portStart = index.groupPortStartArray();
        int[] ports = index.groupPortArray();
        byte[] c = costs.array();
        int leaves = costs.leafCount();
        // candidates: leaves grouped by (first neighbour, last neighbour, group count); each group keeps its
        // representatives (leaves routed on their own) in a small list
        Map<Long, int[]> reps = new HashMap<>();
        for (int s = 0; s < n; s++) {
            int own = index.leafNumber(s);
            int g0 = groupStart[s];
            int k = groupStart[s + 1] - g0;
            if (own == FabricIndex.NONE || k == 0) {
                continue;
            }
            long key = ((long) neighbour[g0] << 32) ^ ((long) neighbour[g0 + k - 1] << 12) ^ k;
            int[] list = reps.get(key);
            int found = NONE;
            if (list != null) {
                for (int i = 1; i <= list[0] && found == NONE; i++) {
                    int r = list[i];
                    if (sameGroups(r, s, groupStart, neighbour, portStart, ports) && divider[r] == divider[s]
                            && sameCostsButTwo(c, leaves, r, s, index.leafNumber(r), own)) {
                        found = r;
                    }
                }
            }
            if (found != NONE) {
                twinOf[s] = found;
            } else {
                if (list == null) {
                    list = new int[5];
                } else if (list[0] + 1 == list.length) {
                    list = Arrays.copyOf(list, list.length * 2);
                }
                list[++list[0]] = s;
                reps.put(key, list);
            }
        }
        return twinOf;
    }

    /** Same neighbours and same ports, group by group. */
    private static boolean sameGroups(int a, int b, int[] groupStart, int[] neighbour, int[] portStart, int[] ports) {
        int ga = groupStart[a];
        int gb = groupStart[b];
        int k = groupStart[a + 1] - ga;
        if (groupStart[b + 1] - gb != k
                || !Arrays.equals(neighbour, ga, ga + k, neighbour, gb, gb + k)) {
            return false;
        }
        for (int i = 0; i < k; i++) {
            int pa = portStart[ga + i];
            int pb = portStart[gb + i];
            int size = portStart[ga + i + 1] - pa;
            if (portStart[gb + i + 1] - pb != size || !Arrays.equals(ports, pa, pa + size, ports, pb, pb + size)) {
                return false;
            }
        }
        return true;
    }

    /** The cost rows of {@code a} and {@code b} are equal at every leaf but {@code la} and {@code lb}. */
    private static boolean sameCostsButTwo(byte[] c, int leaves, int a, int b, int la, int lb) {
        int x = Math.min(la, lb);
        int y = Math.max(la, lb);
        int ra = a * leaves;
        int rb = b * leaves;
        return Arrays.equals(c, ra, ra + x, c, rb, rb + x)
                && Arrays.equals(c, ra + x + 1, ra + y, c, rb + x + 1, rb + y)
                && Arrays.equals(c, ra + y + 1, ra + leaves, c, rb + y + 1, rb + leaves);
    }
}
