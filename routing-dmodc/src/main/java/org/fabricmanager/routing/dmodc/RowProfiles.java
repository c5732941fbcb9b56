package org.fabricmanager.routing.dmodc;

import java.util.Arrays;

/**
 * Each cost row as "its mode everywhere except a few leaves": the most frequent cost of the row
 * and the ascending list of leaves where the cost differs. In a fat tree, degraded or not, a
 * switch is at the same distance from most leaves, so these lists are short, and comparing or
 * combining two rows only needs their modes and their exceptions instead of every leaf. Rows
 * without a dominant cost (more than an eighth of exceptions) have no list and are handled
 * leaf by leaf.
 */
final class RowProfiles {
    private final int[] mode;
    private final int[][] exceptions;

    RowProfiles(int switches) {
        this.mode = new int[switches];
        this.exceptions = new int[switches][];
    }

    /** Profiles the (final) row of switch {@code s}; {@code histogram} is scratch of {@code INFINITE + 1} ints. */
    void profile(CostTable costs, int s, int[] histogram) {
        int leaves = costs.leafCount();
        byte[] c = costs.array();
        int row = s * leaves;
        Arrays.fill(histogram, 0);
        for (int l = 0; l < leaves; l++) {
            histogram[c[row + l]]++;
        }
        int m = 0;
        for (int v = 1; v < histogram.length; v++) {
            if (histogram[v] > histogram[m]) {
                m = v;
            }
        }
        mode[s] = m;
        int count = leaves - histogram[m];
        if (count > leaves / 8) {
            exceptions[s] = null;
            return;
        }
        int[] list = new int[count];
        for (int l = 0, n = 0; n < count; l++) {
            if (c[row + l] != m) {
                list[n++] = l;
            }
        }
        exceptions[s] = list;
    }

    /** The profile of a row that is infinite everywhere. */
    void setUnreachable(int s) {
        mode[s] = CostTable.INFINITE;
        exceptions[s] = new int[0];
    }

    /** The most frequent cost in the row of {@code s}. */
    int mode(int s) {
        return mode[s];
    }

    /** Leaves where the row of {@code s} is not its mode, ascending; null when the row has no dominant cost. */
    int[] exceptions(int s) {
        return exceptions[s];
    }
}
