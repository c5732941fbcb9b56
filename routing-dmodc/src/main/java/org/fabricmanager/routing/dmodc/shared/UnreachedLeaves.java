package org.fabricmanager.routing.dmodc.shared;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.BitRanges;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;

/**
 * Per {@link SharedRows} set, the leaves that none of the switches asking it reaches (own cost
 * infinite): a switch writes no route there whatever the set says, so the set need not be split
 * there. Switches are {@linkplain #ask asked} one at a time in switch order. A set's first asker
 * gives its leaves at cost infinite from its row profile (a row without one is scanned); each later
 * asker keeps those of the leaves still left that it does not reach either, looked up in its row.
 *
 * <p>The work is one call per switch rather than one loop over every switch in a method called
 * once per routing: such a method only ever runs in code compiled for its loops on the fly
 * (on-stack replacement), whose quality varied from JVM to JVM, in some many times the cost of a
 * method called per switch, which is compiled whole.
 */
final class UnreachedLeaves {
    private final CostTable costs;
    private final RowProfiles profiles;
    private final int leaves;
    private final int words;
    private final long[][] unreached;
    // A set with no leaf left (its askers so far reach every leaf) stays so: its later askers are
    // not looked at. A pod's set is such after its first leaf, so one leaf per pod is looked at;
    // a plane's set keeps the ~100 leaves that lost their uplink of the plane.
    private final boolean[] none;
    private final long[] mine;

    UnreachedLeaves(int setCount, CostTable costs, RowProfiles profiles) {
        this.costs = costs;
        this.profiles = profiles;
        this.leaves = costs.leafCount();
        this.words = (leaves + 63) >>> 6;
        this.unreached = new long[setCount][];
        this.none = new boolean[setCount];
        this.mine = new long[words];
    }

    /** Switch {@code s} asks the sets {@code setOfBlock[from, to)}. */
    void ask(int s, int[] setOfBlock, int from, int to) {
        boolean first = false;
        boolean open = false;
        for (int b = from; b < to; b++) {
            int id = setOfBlock[b];
            first |= unreached[id] == null && !none[id];
            open |= !none[id];
        }
        if (!open) {
            return;
        }
        if (first) {
            infiniteLeaves(s);
        }
        for (int b = from; b < to; b++) {
            int id = setOfBlock[b];
            if (none[id]) {
                continue;
            }
            boolean left;
            if (unreached[id] == null) {
                unreached[id] = mine.clone();
                left = !BitRanges.none(unreached[id]);
            } else {
                left = keepUnreached(s, unreached[id]);
            }
            if (!left) {
                none[id] = true;
                unreached[id] = null;
            }
        }
    }

    /** The result: per set, its unreached leaves as bits, or null where there are none. */
    long[][] bySet() {
        return unreached;
    }

    /** The leaves at infinite cost from {@code s} into {@link #mine}. */
    private void infiniteLeaves(int s) {
        Arrays.fill(mine, 0L);
        int[] segments = profiles.segments(s);
        if (segments == null) {
            byte[] c = costs.array();
            int row = s * leaves;
            for (int l = 0; l < leaves; l++) {
                if (c[row + l] == CostTable.INFINITE) {
                    mine[l >>> 6] |= 1L << l;
                }
            }
            return;
        }
        boolean modeUnreached = profiles.mode(s) == CostTable.INFINITE;
        if (modeUnreached) {
            BitRanges.set(mine, 0, leaves);
        }
        for (int g = 0; g < segments.length; g += 3) {
            boolean inf = segments[g + 2] == CostTable.INFINITE;
            if (inf != modeUnreached) {
                if (inf) {
                    BitRanges.set(mine, segments[g], segments[g + 1]);
                } else {
                    BitRanges.clear(mine, segments[g], segments[g + 1]);
                }
            }
        }
    }

    /**
     * Clears in {@code all} the leaves that {@code s} reaches; true when any is left. Only the leaves
     * still left are looked up in the row of {@code s} (a plane's set keeps about a hundred, against
     * about as many segments per row).
     */
    private boolean keepUnreached(int s, long[] all) {
        byte[] c = costs.array();
        int row = s * leaves;
        boolean left = false;
        for (int w = 0; w < words; w++) {
            long word = all[w];
            for (long bits = word; bits != 0; bits &= bits - 1) {
                int l = (w << 6) + Long.numberOfTrailingZeros(bits);
                if (c[row + l] != CostTable.INFINITE) {
                    word &= ~(1L << l);
                }
            }
            all[w] = word;
            left |= word != 0;
        }
        return left;
    }
}
