package org.fabricmanager.routing.dmodc;

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
final class RowProfiles {
    private final int[] mode;
    private final int[][] segments;

    RowProfiles(int switches) {
        this.mode = new int[switches];
        this.segments = new int[switches][];
    }

    /**
     * Profiles the (final) row of switch {@code s}; {@code histogram} is scratch of
     * {@code INFINITE + 1} ints. A cost held by more than half the leaves is found eight leaves at
     * a time; only rows without one need a histogram (ties go to the smallest cost).
     */
    void profile(CostTable costs, int s, int[] histogram) {
        int leaves = costs.leafCount();
        if (leaves == 0) {
            mode[s] = CostTable.INFINITE;
            segments[s] = new int[0];
            return;
        }
        byte[] c = costs.array();
        int row = s * leaves;
        int wide = leaves & ~7;
        int a = c[row];
        int b = c[row + leaves / 2];
        int guess = a == c[row + leaves - 1] ? a : b;
        int differ = countDifferent(c, row, leaves, guess);
        int m = guess;
        if (2 * differ >= leaves) {
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
            differ = leaves - histogram[m];
        }
        mode[s] = m;
        if (differ > leaves / 8) {
            segments[s] = null;
            return;
        }
        int[] list = new int[3 * differ];
        int n = 0;
        long m8 = ByteLanes.ONES * m;
        int open = -1;
        int value = m;
        for (int l = 0; l < leaves; ) {
            if (l + 8 <= leaves && open < 0
                    && (((ByteLanes.get(c, row + l) ^ m8) + 0x7F7F7F7F7F7F7F7FL) & ByteLanes.HIGH) == 0) {
                l += 8;
                continue;
            }
            int v = c[row + l];
            if (open >= 0 && v != value) {
                list[n++] = open;
                list[n++] = l;
                list[n++] = value;
                open = -1;
            }
            if (open < 0 && v != m) {
                open = l;
                value = v;
            }
            l++;
        }
        if (open >= 0) {
            list[n++] = open;
            list[n++] = leaves;
            list[n++] = value;
        }
        segments[s] = Arrays.copyOf(list, n);
    }

    private static int countDifferent(byte[] c, int row, int leaves, int value) {
        int wide = leaves & ~7;
        long v8 = ByteLanes.ONES * value;
        int differ = 0;
        for (int l = 0; l < wide; l += 8) {
            differ += Long.bitCount(((ByteLanes.get(c, row + l) ^ v8) + 0x7F7F7F7F7F7F7F7FL) & ByteLanes.HIGH);
        }
        for (int l = wide; l < leaves; l++) {
            if (c[row + l] != value) {
                differ++;
            }
        }
        return differ;
    }

    /** The profile of a row that is infinite everywhere. */
    void setUnreachable(int s) {
        mode[s] = CostTable.INFINITE;
        segments[s] = new int[0];
    }

    /** The most frequent cost in the row of {@code s}. */
    int mode(int s) {
        return mode[s];
    }

    /**
     * The runs of leaves where the row of {@code s} is not its mode: triples
     * {@code (from, to exclusive, cost)} in leaf order; null when the row has no dominant cost.
     */
    int[] segments(int s) {
        return segments[s];
    }
}
