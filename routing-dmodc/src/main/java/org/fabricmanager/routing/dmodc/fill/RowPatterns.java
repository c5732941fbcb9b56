package org.fabricmanager.routing.dmodc.fill;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.ByteLanes;

/**
 * Fills table rows with periodic port patterns at memory speed: once one period of a pattern is
 * written, the rest of the range is copied from it with doubling {@code System.arraycopy} calls
 * (1, 2, 4, ... periods), instead of being computed entry by entry.
 */
public final class RowPatterns {
    /** Longest period worth replicating; longer patterns are written run by run. */
    static final int MAX_PERIOD = 1 << 16;

    private RowPatterns() {
    }

    /** {@code Arrays.fill} for the short runs of table rows: eight entries per store. */
    static void fill(byte[] row, int from, int to, byte value) {
        int len = to - from;
        if (len > 64) {
            Arrays.fill(row, from, to, value);
            return;
        }
        long v = ByteLanes.ONES * (value & 0xff);
        if (len == 32) {
            // one destination leaf of 32 nodes (a deferred no-route, a level-2 step): straight stores
            ByteLanes.set(row, from, v);
            ByteLanes.set(row, from + 8, v);
            ByteLanes.set(row, from + 16, v);
            ByteLanes.set(row, from + 24, v);
            return;
        }
        int d = from;
        for (; d + 8 <= to; d += 8) {
            ByteLanes.set(row, d, v);
        }
        for (; d < to; d++) {
            row[d] = value;
        }
    }

    /**
     * Extends the pattern {@code row[from, from + written)}, whose length is a whole number of
     * periods, over {@code [from + written, to)}.
     */
    public static void replicate(byte[] row, int from, int written, int to) {
        int w = written;
        while (w < to - from) {
            int len = Math.min(w, to - from - w);
            System.arraycopy(row, from, row, from + w, len);
            w += len;
        }
    }
}
