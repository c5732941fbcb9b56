package org.fabricmanager.routing.dmodc.shared;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.BitRanges;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;

/**
 * The leaves where two profiled cost rows with the same mode differ, added to a bit set. The two
 * segment lists are compared a run of identical segments at a time ({@link Arrays#mismatch}, which
 * the JIT vectorises), and walked boundary by boundary only from a mismatch until both lists are
 * back outside a segment: the rows of one plane's level-2 switches in two pods have the same hundred
 * segments but for the two pods' own leaves, so a comparison is a few vector compares and two short
 * walks instead of a walk over every boundary.
 */
final class RowDifferences {
    private RowDifferences() {
    }

    /**
     * Sets in {@code differ} the leaves (of {@code leaves}) where the rows {@code (mode, a)} and
     * {@code (mode, b)} have different costs; {@code a} and {@code b} are segment lists as
     * {@link RowProfiles#segments} gives them.
     */
    static void add(int[] a, int[] b, int mode, int leaves, long[] differ) {
        int i = 0;
        int k = 0;
        int na = a.length;
        int nb = b.length;
        while (true) {
            int r = Arrays.mismatch(a, i, na, b, k, nb);
            if (r < 0) {
                return;
            }
            // The first r / 3 segments from i and k are the same in both, and so are the gaps
            // between them (both rows at the mode): skipped. Both rows are in a gap here.
            i += r / 3 * 3;
            k += r / 3 * 3;
            int cur = Math.min(i < na ? a[i] : leaves, k < nb ? b[k] : leaves);
            // Walk boundary by boundary until both rows are outside a segment again (at least one step).
            do {
                boolean inA = i < na && a[i] <= cur;
                boolean inB = k < nb && b[k] <= cur;
                int ca = inA ? a[i + 2] : mode;
                int cb = inB ? b[k + 2] : mode;
                int nextA = inA ? a[i + 1] : i < na ? a[i] : leaves;
                int nextB = inB ? b[k + 1] : k < nb ? b[k] : leaves;
                int next = Math.min(nextA, nextB);
                if (ca != cb) {
                    BitRanges.set(differ, cur, next);
                }
                cur = next;
                if (inA && a[i + 1] == cur) {
                    i += 3;
                }
                if (inB && b[k + 1] == cur) {
                    k += 3;
                }
                if (cur >= leaves) {
                    return;
                }
            } while ((i < na && a[i] < cur) || (k < nb && b[k] < cur));
        }
    }
}
