package org.fabricmanager.routing.dmodc;

/**
 * Fills table rows with periodic port patterns at memory speed: once one period of a pattern is
 * written, the rest of the range is copied from it with doubling {@code System.arraycopy} calls
 * (1, 2, 4, ... periods), instead of being computed entry by entry.
 */
final class RowPatterns {
    /** Longest period worth replicating; longer patterns are written run by run. */
    static final int MAX_PERIOD = 1 << 16;

    private RowPatterns() {
    }

    /**
     * Extends the pattern {@code row[from, from + written)}, whose length is a whole number of
     * periods, over {@code [from + written, to)}.
     */
    static void replicate(byte[] row, int from, int written, int to) {
        int w = written;
        while (w < to - from) {
            int len = Math.min(w, to - from - w);
            System.arraycopy(row, from, row, from + w, len);
            w += len;
        }
    }
}
