package org.fabricmanager.routing.dmodc;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;

/**
 * Formulas (3) and (4) for one switch at a time, per set of candidate groups (a bit mask over the
 * switch's groups, bit {@code i} for group {@code g0 + i}). A cached "selector" holds a set's
 * candidate list in group order and, when short enough, the periodic sequence of ports over
 * {@code q = floor(d / Π_s)}: {@code q mod #C} and {@code floor(q / #C) mod #g} both repeat with
 * period {@code #C × lcm(#g)}. Ranges of destinations are then written a period at a time and
 * copied ({@link RowPatterns}). One instance per worker thread.
 */
final class Selectors {
    private static final byte NO_ROUTE = (byte) ForwardingTables.NO_ROUTE;
    private static final int SLOT_BITS = 8;
    private static final int SLOTS = 1 << SLOT_BITS;
    private static final int SEQUENCE_MAX = 512;
    /** Ranges over at most this many values of q are written without a selector. */
    private static final int DIRECT_STEPS = 4;

    private final int[] groupPortStart;
    private final int[] groupPorts;
    private final int maxGroups;
    private final int words;
    private final long[] slotKey;
    private final int[] slotEpoch = new int[SLOTS];
    private final int[] slotCount = new int[SLOTS];
    private final int[] slotCandidates;
    private final int[] slotPeriod = new int[SLOTS];
    private final byte[] slotSequence = new byte[SLOTS * SEQUENCE_MAX];
    private int epoch;
    private int g0;
    private int w;

    Selectors(int[] groupPortStart, int[] groupPorts, int maxGroups) {
        this.groupPortStart = groupPortStart;
        this.groupPorts = groupPorts;
        this.maxGroups = Math.max(1, maxGroups);
        this.words = Math.max(1, (maxGroups + 63) >>> 6);
        this.slotKey = new long[SLOTS * words];
        this.slotCandidates = new int[SLOTS * this.maxGroups];
    }

    /** Starts a switch whose groups are {@code g0 ..}, masks of {@code w} words; forgets the previous switch's selectors. */
    void begin(int firstGroup, int maskWords) {
        g0 = firstGroup;
        w = maskWords;
        if (++epoch == 0) {
            Arrays.fill(slotEpoch, 0);
            epoch = 1;
        }
    }

    /**
     * Writes formulas (3)-(4) over destinations {@code [from, to)} for the candidates {@code mask}
     * ({@code 255} when it is empty).
     */
    void fill(byte[] row, int from, int to, long[] mask, int pi) {
        int q = from / pi;
        int last = (to - 1) / pi;
        if (last - q >= DIRECT_STEPS) {
            fillRange(row, from, to, slot(mask), pi);
            return;
        }
        // Few values of q: take the ports straight from the mask (the (q mod #C)-th set bit).
        int n = 0;
        for (int i = 0; i < w; i++) {
            n += Long.bitCount(mask[i]);
        }
        if (n == 0) {
            Arrays.fill(row, from, to, NO_ROUTE);
            return;
        }
        for (int d = from; q <= last; q++) {
            int stop = (int) Math.min((q + 1L) * pi, to);
            int g = g0 + selectBit(mask, q % n);
            int size = groupSize(g);
            RowPatterns.fill(row, d, stop, (byte) groupPorts[groupPortStart[g] + (size == 1 ? 0 : (q / n) % size)]);
            d = stop;
        }
    }

    /** Formulas (3)-(4) for destination {@code d} with the candidates {@code mask}. */
    byte port(long[] mask, int d, int pi) {
        int slot = slot(mask);
        int n = slotCount[slot];
        if (n == 0) {
            return NO_ROUTE;
        }
        int q = d / pi;
        int period = slotPeriod[slot];
        return period > 0 ? slotSequence[slot * SEQUENCE_MAX + q % period] : (byte) portOf(slot * maxGroups, n, q);
    }

    /** The cache slot holding the selector of {@code key}, built on a miss. */
    private int slot(long[] key) {
        long h = 0;
        for (int i = 0; i < w; i++) {
            h = (h + key[i]) * 0x9E3779B97F4A7C15L;
        }
        int slot = (int) (h >>> (64 - SLOT_BITS));
        if (slotEpoch[slot] == epoch) {
            boolean same = true;
            for (int i = 0; i < w; i++) {
                if (slotKey[slot * words + i] != key[i]) {
                    same = false;
                    break;
                }
            }
            if (same) {
                return slot;
            }
        }
        build(slot, key);
        return slot;
    }

    /** Candidate groups of {@code key} in group order, and the port sequence over {@code q} when it is short. */
    private void build(int slot, long[] key) {
        slotEpoch[slot] = epoch;
        int at = slot * maxGroups;
        int n = 0;
        for (int i = 0; i < w; i++) {
            slotKey[slot * words + i] = key[i];
            long bits = key[i];
            while (bits != 0) {
                slotCandidates[at + n++] = g0 + i * 64 + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
            }
        }
        slotCount[slot] = n;
        slotPeriod[slot] = 0;
        if (n == 0) {
            return;
        }
        long lcm = 1;
        for (int i = 0; i < n && lcm * n <= SEQUENCE_MAX; i++) {
            int size = groupSize(slotCandidates[at + i]);
            if (size > 1 && lcm % size != 0) {
                lcm = lcm / gcd(lcm, size) * size;
            }
        }
        if (lcm * n > SEQUENCE_MAX) {
            return;
        }
        int period = (int) lcm * n;
        int seq = slot * SEQUENCE_MAX;
        if (lcm == 1) {
            for (int q = 0; q < n; q++) {
                slotSequence[seq + q] = (byte) groupPorts[groupPortStart[slotCandidates[at + q]]];
            }
        } else {
            for (int q = 0; q < period; q++) {
                slotSequence[seq + q] = (byte) portOf(at, n, q);
            }
        }
        slotPeriod[slot] = period;
    }

    /** Formulas (3) and (4) for {@code q = floor(d / Π_s)} with the candidates at {@code at}. */
    private int portOf(int at, int n, int q) {
        int g = slotCandidates[at + q % n];
        int size = groupSize(g);
        int j = size == 1 ? 0 : (q / n) % size;
        return groupPorts[groupPortStart[g] + j];
    }

    private int groupSize(int g) {
        return groupPortStart[g + 1] - groupPortStart[g];
    }

    /** Formulas (3)-(4) over {@code [from, to)} with the selector in {@code slot}. */
    private void fillRange(byte[] row, int from, int to, int slot, int pi) {
        int n = slotCount[slot];
        int period = slotPeriod[slot];
        if (n == 0) {
            Arrays.fill(row, from, to, NO_ROUTE);
            return;
        }
        int q = from / pi;
        int run = pi - (from - q * pi);
        if (period == 0) {
            int at = slot * maxGroups;
            for (int d = from; d < to; q++) {
                int stop = (int) Math.min((long) d + run, to);
                RowPatterns.fill(row, d, stop, (byte) portOf(at, n, q));
                d = stop;
                run = pi;
            }
            return;
        }
        // In d, the ports repeat every Π_s × period entries: write one cycle, copy the rest.
        long cycle = (long) pi * period;
        int limit = to;
        boolean replicate = cycle <= RowPatterns.MAX_PERIOD && to - from > 2 * cycle;
        if (replicate) {
            limit = from + (int) cycle;
        }
        int seq = slot * SEQUENCE_MAX;
        int r = q % period;
        if (pi == 1) {
            for (int d = from; d < limit; r = 0) {
                int len = Math.min(period - r, limit - d);
                System.arraycopy(slotSequence, seq + r, row, d, len);
                d += len;
            }
        } else {
            for (int d = from; d < limit; ) {
                int stop = (int) Math.min((long) d + run, limit);
                RowPatterns.fill(row, d, stop, slotSequence[seq + r]);
                d = stop;
                run = pi;
                if (++r == period) {
                    r = 0;
                }
            }
        }
        if (replicate) {
            RowPatterns.replicate(row, from, (int) cycle, to);
        }
    }

    /** Index of the {@code r}-th (from 0) set bit of {@code bits}. */
    private static int selectBit(long[] bits, int r) {
        int i = 0;
        int count = Long.bitCount(bits[0]);
        while (r >= count) {
            r -= count;
            count = Long.bitCount(bits[++i]);
        }
        long word = bits[i];
        int at = 0;
        for (int half = 32; half > 0; half >>>= 1) {
            int low = Long.bitCount(word & ((1L << half) - 1));
            if (r >= low) {
                r -= low;
                word >>>= half;
                at += half;
            }
        }
        return i * 64 + at;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
