package org.fabricmanager.routing.dmodc.preprocess;

import java.util.Arrays;

/**
 * For the second pass of Procedure 1: the switches whose up neighbours overlap (the leaves of a
 * pod below the pod's switches, the switches of a plane below the plane's top switches) grouped
 * into sets, each set's rows being the union of their up neighbours. Going down, a set's rows are
 * merged once into their minimum per leaf plus one and how many rows reach that minimum
 * ({@link #merge}); each switch of the set then lowers its row to that minimum in one pass and
 * recomputes exactly only the leaves where the rows it lacks could be the only ones at the
 * minimum ({@link #lower}). Sets with a single switch gain nothing and are left to the switch's
 * own pull.
 */
final class UpSets {
    /** Most rows a merged set may have: per-leaf counts are compared as bytes below 128. */
    static final int MAX_ROWS = 120;

    private final int[] setOf;
    private final int[][] rows;
    private final int[] switchCount;

    private UpSets(int[] setOf, int[][] rows, int[] switchCount) {
        this.setOf = setOf;
        this.rows = rows;
        this.switchCount = switchCount;
    }

    /** Groups switches by overlapping up neighbours. */
    static UpSets of(int switches, Neighbours neighbours) {
        int[] parent = new int[switches];
        for (int u = 0; u < switches; u++) {
            parent[u] = u;
        }
        for (int s = 0; s < switches; s++) {
            int from = neighbours.upStart(s);
            int to = neighbours.upEnd(s);
            if (from == to) {
                continue;
            }
            int root = find(parent, neighbours.up(from));
            for (int i = from + 1; i < to; i++) {
                int other = find(parent, neighbours.up(i));
                if (other != root) {
                    parent[other] = root;
                }
            }
        }
        int[] setOfRoot = new int[switches];
        Arrays.fill(setOfRoot, -1);
        int[] setOf = new int[switches];
        Arrays.fill(setOf, -1);
        int sets = 0;
        int[] count = new int[16];
        for (int s = 0; s < switches; s++) {
            if (neighbours.upStart(s) == neighbours.upEnd(s)) {
                continue;
            }
            int root = find(parent, neighbours.up(neighbours.upStart(s)));
            if (setOfRoot[root] < 0) {
                setOfRoot[root] = sets++;
                if (sets > count.length) {
                    count = Arrays.copyOf(count, count.length * 2);
                }
            }
            setOf[s] = setOfRoot[root];
            count[setOf[s]]++;
        }
        // Rows of each set: every switch whose root is the set's, in ascending id order.
        int[] size = new int[sets];
        boolean[] isRow = new boolean[switches];
        for (int s = 0; s < switches; s++) {
            for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                int u = neighbours.up(i);
                if (!isRow[u]) {
                    isRow[u] = true;
                    size[setOfRoot[find(parent, u)]]++;
                }
            }
        }
        int[][] rows = new int[sets][];
        for (int id = 0; id < sets; id++) {
            rows[id] = new int[size[id]];
        }
        int[] fill = new int[sets];
        for (int u = 0; u < switches; u++) {
            if (isRow[u]) {
                int id = setOfRoot[find(parent, u)];
                rows[id][fill[id]++] = u;
            }
        }
        return new UpSets(setOf, rows, Arrays.copyOf(count, sets));
    }

    /** The set of switch {@code s}, or -1 when it has no up neighbour. */
    int setOf(int s) {
        return setOf[s];
    }

    /**
     * True when set {@code id} serves more than one switch, so that merging its rows pays (and has
     * at most {@link #MAX_ROWS} rows, so that counts fit the byte lanes).
     */
    boolean shared(int id) {
        return switchCount[id] > 1 && rows[id].length <= MAX_ROWS;
    }

    /** Number of sets. */
    int count() {
        return rows.length;
    }

    /** The switches whose rows set {@code id} merges, ascending. */
    int[] rows(int id) {
        return rows[id];
    }

    /**
     * Merges the (final) rows of set {@code id}: {@code lowest[l]} = min over the rows of
     * {@code c[u][l]}, plus one unless infinite; {@code count[l]} = how many rows have that
     * minimum. Eight leaves at a time.
     */
    void merge(int id, CostTable costs, byte[] lowest, byte[] count) {
        byte[] c = costs.array();
        int leaves = costs.leafCount();
        int wide = leaves & ~7;
        int[] members = rows[id];
        Arrays.fill(lowest, 0, leaves, (byte) CostTable.INFINITE);
        Arrays.fill(count, 0, leaves, (byte) 0);
        for (int u : members) {
            int row = u * leaves;
            for (int l = 0; l < wide; l += 8) {
                long v = ByteLanes.get(c, row + l);
                long low = ByteLanes.get(lowest, l);
                long n = ByteLanes.get(count, l);
                long below = (ByteLanes.lessThan(v, low) >>> 7) * 0xFF;
                long equal = (~((v ^ low) + 0x7F7F7F7F7F7F7F7FL) & ByteLanes.HIGH) >>> 7;
                // Where below: count 1; where equal: count + 1; elsewhere unchanged.
                n = (n & ~below) | (ByteLanes.ONES & below);
                n += equal;
                ByteLanes.set(count, l, n);
                ByteLanes.set(lowest, l, ByteLanes.min(low, v));
            }
            for (int l = wide; l < leaves; l++) {
                int v = c[row + l];
                if (v < lowest[l]) {
                    lowest[l] = (byte) v;
                    count[l] = 1;
                } else if (v == lowest[l]) {
                    count[l]++;
                }
            }
        }
        for (int l = 0; l < wide; l += 8) {
            ByteLanes.set(lowest, l, ByteLanes.incrementSaturating(ByteLanes.get(lowest, l)));
        }
        for (int l = wide; l < leaves; l++) {
            if (lowest[l] != CostTable.INFINITE) {
                lowest[l]++;
            }
        }
    }

    /**
     * Second pass of Procedure 1 for switch {@code s} from its set's merge: {@code c[s][l] =
     * min(c[s][l], c[u][l] + 1)} over its up neighbours {@code u}. Where at least one more row
     * than {@code s} lacks reaches the minimum, one of its own up neighbours does, so the merged
     * minimum is exact; elsewhere (rows lacking, and too few at the minimum) it is recomputed from
     * its own up neighbours. {@code fragile} is scratch of {@code leaves} ints.
     */
    void lower(int s, int id, CostTable costs, Neighbours neighbours, byte[] lowest, byte[] count, int[] fragile,
               byte[] saved) {
        byte[] c = costs.array();
        int leaves = costs.leafCount();
        int wide = leaves & ~7;
        int row = s * leaves;
        int lacking = rows[id].length - (neighbours.upEnd(s) - neighbours.upStart(s));
        int n = 0;
        if (lacking > 0) {
            // Leaves where count <= lacking: the rows s has might all be above the minimum.
            long limit = ByteLanes.ONES * (lacking + 1);
            for (int l = 0; l < wide; l += 8) {
                long few = ByteLanes.lessThan(ByteLanes.get(count, l), limit);
                while (few != 0) {
                    int lane = Long.numberOfTrailingZeros(few) >>> 3;
                    few &= few - 1;
                    fragile[n] = l + lane;
                    saved[n++] = c[row + l + lane];
                }
            }
            for (int l = wide; l < leaves; l++) {
                if (count[l] <= lacking) {
                    fragile[n] = l;
                    saved[n++] = c[row + l];
                }
            }
        }
        for (int l = 0; l < wide; l += 8) {
            ByteLanes.set(c, row + l, ByteLanes.min(ByteLanes.get(c, row + l), ByteLanes.get(lowest, l)));
        }
        for (int l = wide; l < leaves; l++) {
            if (lowest[l] < c[row + l]) {
                c[row + l] = lowest[l];
            }
        }
        for (int k = 0; k < n; k++) {
            int l = fragile[k];
            int best = saved[k];
            for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                int v = c[neighbours.up(i) * leaves + l];
                if (v != CostTable.INFINITE && v + 1 < best) {
                    best = v + 1;
                }
            }
            c[row + l] = (byte) best;
        }
    }

    private static int find(int[] parent, int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }
}
