package org.fabricmanager.routing.dmodc.preprocess;

import java.util.Arrays;

/**
 * Each cost row as "its mode everywhere except a few segments": the most frequent cost of the
 * row and the maximal runs of consecutive leaves where the cost is something else, as
 * {@code (from, to, cost)} triples in leaf order. In a fat tree, degraded or not, a switch is at
 * the same distance from most leaves and leaves are numbered pod by pod, so these lists are short,
 * and comparing or combining rows only needs their modes and segments instead of every leaf. Rows
 * without a dominant cost (more than an eighth of the leaves elsewhere) have no segments and are
 * handled leaf by leaf.
 */
public final class RowProfiles {
    private final int[] mode;
    private final int[][] segments;

    public RowProfiles(int switches) {
        this.mode = new int[switches];
        this.segments = new int[switches][];
    }

    /**
     * Profiles the (final) row of switch {@code s}; {@code histogram} is scratch of
     * {@code INFINITE + 1} ints, {@code scratch} of {@code 3 * leaves / 8 + 3} ints. A cost held by more than half the leaves is found eight leaves at
     * a time; only rows without one need a histogram (ties go to the smallest cost).
     */
    public void profile(CostTable costs, int s, int[] histogram, int[] scratch) {
        int leaves = costs.leafCount();
        if (leaves == 0) {
            mode[s] = CostTable.INFINITE;
            segments[s] = new int[0];
            return;
        }
        byte[] c = costs.array();
        int row = s * leaves;
        int limit = leaves / 8;
        int a = c[row];
        int m = a == c[row + leaves - 1] ? a : c[row + leaves / 2];
        int n = scan(c, row, leaves, m, scratch, limit);
        if (n < 0) {
            // The guess is not a dominant cost; the histogram says whether there is one.
            Arrays.fill(histogram, 0);
            for (int l = 0; l < leaves; l++) {
                histogram[c[row + l]]++;
            }
            m = 0;
            for (int v = 1; v < histogram.length; v++) {
                if (histogram[v] > histogram[m]) {
                    m = v;
                }
            }
            n = leaves - histogram[m] > limit ? -1 : scan(c, row, leaves, m, scratch, limit);
        }
        mode[s] = m;
        segments[s] = n < 0 ? null : Arrays.copyOf(scratch, n);
    }

    /**
     * Writes the segments of the row at {@code row} where the cost is not {@code m} into
     * {@code list} and returns their length in ints, or -1 as soon as more than {@code limit}
     * leaves are found elsewhere than at {@code m}. Runs of eight leaves at {@code m} are skipped
     * in one step.
     */
    private static int scan(byte[] c, int row, int leaves, int m, int[] list, int limit) {
        int n = 0;
        int differ = 0;
        long m8 = ByteLanes.ONES * m;
        int open = -1;
        int value = m;
        long value8 = m8;
        for (int l = 0; l < leaves; ) {
            if (l + 8 <= leaves && open >= 0) {
                // Inside a segment: eight leaves at its cost at a time, then straight to its end. A
                // degraded row's segments are often a pod of 32 leaves (its own, or one it reaches
                // otherwise), which the loop below would take leaf by leaf.
                long other = ((ByteLanes.get(c, row + l) ^ value8) + 0x7F7F7F7F7F7F7F7FL) & ByteLanes.HIGH;
                int same = other == 0 ? 8 : Long.numberOfTrailingZeros(other) >>> 3;
                differ += same;
                if (differ > limit) {
                    return -1;
                }
                l += same;
                if (same == 8) {
                    continue;
                }
            } else if (l + 8 <= leaves) {
                // High bit of each byte whose cost is not m (costs are at most 127: no carries).
                long other = ((ByteLanes.get(c, row + l) ^ m8) + 0x7F7F7F7F7F7F7F7FL) & ByteLanes.HIGH;
                if (other == 0) {
                    l += 8;
                    continue;
                }
                // Straight to the first leaf off m: the ones before it are at m with nothing open,
                // where the loop below would only step on. A degraded row's one-leaf segments
                // otherwise cost up to eight single steps each, each after a failed eight-leaf test.
                l += Long.numberOfTrailingZeros(other) >>> 3;
            }
            int v = c[row + l];
            if (open >= 0 && v != value) {
                list[n++] = open;
                list[n++] = l;
                list[n++] = value;
                open = -1;
            }
            if (v != m) {
                if (++differ > limit) {
                    return -1;
                }
                if (open < 0) {
                    open = l;
                    value = v;
                    value8 = ByteLanes.ONES * v;
                }
            }
            l++;
        }
        if (open >= 0) {
            list[n++] = open;
            list[n++] = leaves;
            list[n++] = value;
        }
        return n;
    }

    /** Row {@code s} has the profile of row {@code t} of {@code other} (an identical row; the segments are shared). */
    void copy(int s, RowProfiles other, int t) {
        mode[s] = other.mode[t];
        segments[s] = other.segments[t];
    }

    /** The profile of a row that is infinite everywhere. */
    void setUnreachable(int s) {
        mode[s] = CostTable.INFINITE;
        segments[s] = new int[0];
    }

    /** True when both rows are profiled and identical. */
    boolean same(int s, int t) {
        int[] a = segments[s];
        int[] b = segments[t];
        if (mode[s] != mode[t] || a == null || b == null || a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) { // short arrays that usually differ early
            if (a[i] != b[i]) {
                return false;
            }
        }
        return true;
    }

    /** The most frequent cost in the row of {@code s}. */
    public int mode(int s) {
        return mode[s];
    }

    /**
     * The runs of leaves where the row of {@code s} is not its mode: triples
     * {@code (from, to exclusive, cost)} in leaf order; null when the row has no dominant cost.
     */
    public int[] segments(int s) {
        return segments[s];
    }
}
