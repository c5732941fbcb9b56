package org.fabricmanager.routing.dmodc.preprocess;

/**
 * Ranges of bits in a bit set over the leaves ({@code long[]}, bit {@code l} of word
 * {@code l >>> 6}), a word at a time. The sets of leaves that no switch asking a {@code SharedRows}
 * set reaches are built and queried range by range: once per segment of every row profile, which on
 * a large degraded fabric is hundreds of thousands of segments per routing, where a loop over single
 * bits weighed on the preprocessing's serial part.
 */
public final class BitRanges {
    private BitRanges() {
    }

    /** Sets the bits {@code [from, to)} (nothing when {@code from >= to}). */
    public static void set(long[] bits, int from, int to) {
        if (from >= to) {
            return;
        }
        int first = from >>> 6;
        int last = (to - 1) >>> 6;
        long low = -1L << from; // Java shifts by the low six bits: bits from (from mod 64) upwards
        long high = -1L >>> -to; // bits below (to mod 64), or all when to is a multiple of 64
        if (first == last) {
            bits[first] |= low & high;
            return;
        }
        bits[first] |= low;
        for (int w = first + 1; w < last; w++) {
            bits[w] = -1L;
        }
        bits[last] |= high;
    }

    /** Clears the bits {@code [from, to)} (nothing when {@code from >= to}). */
    public static void clear(long[] bits, int from, int to) {
        if (from >= to) {
            return;
        }
        int first = from >>> 6;
        int last = (to - 1) >>> 6;
        long low = -1L << from;
        long high = -1L >>> -to;
        if (first == last) {
            bits[first] &= ~(low & high);
            return;
        }
        bits[first] &= ~low;
        for (int w = first + 1; w < last; w++) {
            bits[w] = 0L;
        }
        bits[last] &= ~high;
    }

    /** Whether no bit is set. */
    public static boolean none(long[] bits) {
        for (long word : bits) {
            if (word != 0) {
                return false;
            }
        }
        return true;
    }

    /** True when every bit of {@code [from, to)} is set (an empty range included). */
    public static boolean allSet(long[] bits, int from, int to) {
        if (from >= to) {
            return true;
        }
        int first = from >>> 6;
        int last = (to - 1) >>> 6;
        long low = -1L << from;
        long high = -1L >>> -to;
        if (first == last) {
            long range = low & high;
            return (bits[first] & range) == range;
        }
        if ((bits[first] & low) != low) {
            return false;
        }
        for (int w = first + 1; w < last; w++) {
            if (bits[w] != -1L) {
                return false;
            }
        }
        return (bits[last] & high) == high;
    }

    /** The first set bit in {@code [from, limit)}, or {@code limit} when there is none. */
    public static int nextSet(long[] bits, int from, int limit) {
        return next(bits, from, limit, 0L);
    }

    /** The first clear bit in {@code [from, limit)}, or {@code limit} when there is none. */
    public static int nextClear(long[] bits, int from, int limit) {
        return next(bits, from, limit, -1L);
    }

    /** The first bit in {@code [from, limit)} that differs from {@code flip}'s (all zeroes or all ones), or {@code limit}. */
    private static int next(long[] bits, int from, int limit, long flip) {
        if (from >= limit) {
            return limit;
        }
        int w = from >>> 6;
        long word = (bits[w] ^ flip) & (-1L << from);
        while (word == 0) {
            if (++w >= bits.length) {
                return limit;
            }
            word = bits[w] ^ flip;
        }
        return Math.min(limit, (w << 6) + Long.numberOfTrailingZeros(word));
    }
}
