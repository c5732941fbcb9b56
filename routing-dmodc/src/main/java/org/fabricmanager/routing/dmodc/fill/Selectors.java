package org.fabricmanager.routing.dmodc.fill;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.dmodc.preprocess.ByteLanes;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;

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
    private final int[] slotCount;
    private final int[] slotCandidates;
    private final int[] slotPeriod;
    private final byte[] slotSequence;
    private int epoch;
    private int g0;
    private int w;
    /** Every group of the current switch has one port: sequences come from {@link #octets}, uncached. */
    private boolean singlePorts;
    /**
     * Per group octet {@code o} (groups {@code 8o .. 8o+7}) and byte {@code b} of a mask: the ports of
     * the groups set in {@code b}, in order, packed into a {@code long} (first port lowest), built
     * lazily for the current switch.
     */
    private final long[] octets;
    private final int[] octetEpoch;
    /** {@link #fillRotation}'s candidate ports, repeated: 3 x 64 plus the spill of an eight-byte write. */
    private final byte[] rotation = new byte[3 * 64 + 16];
    private final long[] packed = new long[8];
    private final int[] packedCount = new int[8];
    /** The step {@code Π_s} written as four straight stores: 32, or -1 without {@link DmodcShortcuts.Shortcut#STRAIGHT_32}. */
    private final int straight;

    Selectors(int[] groupPortStart, int[] groupPorts, int maxGroups) {
        this(groupPortStart, groupPorts, maxGroups, DmodcShortcuts.ALL);
    }

    /** Taking only the {@code shortcuts} given ({@link DmodcShortcuts.Shortcut#STRAIGHT_32}). */
    Selectors(int[] groupPortStart, int[] groupPorts, int maxGroups, DmodcShortcuts shortcuts) {
        this.straight = shortcuts.on(DmodcShortcuts.Shortcut.STRAIGHT_32) ? 32 : -1;
        this.groupPortStart = groupPortStart;
        this.groupPorts = groupPorts;
        this.maxGroups = Math.max(1, maxGroups);
        this.words = Math.max(1, (maxGroups + 63) >>> 6);
        this.slotKey = new long[SLOTS * words];
        this.slotCandidates = new int[(SLOTS + 1) * this.maxGroups];
        this.slotCount = new int[SLOTS + 1];
        this.slotPeriod = new int[SLOTS + 1];
        this.slotSequence = new byte[(SLOTS + 1) * SEQUENCE_MAX];
        this.octets = new long[words * 8 * 256];
        this.octetEpoch = new int[words * 8];
    }

    /**
     * Starts a switch whose {@code groups} groups are {@code g0 ..}, masks of {@code w} words;
     * forgets the previous switch's selectors.
     */
    void begin(int firstGroup, int maskWords, int groups) {
        g0 = firstGroup;
        w = maskWords;
        if (++epoch == 0) {
            Arrays.fill(slotEpoch, 0);
            Arrays.fill(octetEpoch, 0);
            epoch = 1;
        }
        boolean single = true;
        for (int g = firstGroup; g < firstGroup + groups && single; g++) {
            single = groupSize(g) == 1;
        }
        singlePorts = single;
    }

    /** True when every group of the current switch has one port. */
    boolean singlePorts() {
        return singlePorts;
    }

    /**
     * Writes formulas (3)-(4) over destinations {@code [from, to)} for the candidates {@code mask}
     * ({@code 255} when it is empty).
     */
    void fill(byte[] row, int from, int to, long[] mask, int pi) {
        if (pi == 1 && singlePorts && w == 1) {
            fillRotation(row, from, to, mask[0]);
            return;
        }
        if (singlePorts && w == 1 && to - from >= DIRECT_STEPS * pi
                && to - from <= 2L * pi * Long.bitCount(mask[0])) {
            fillSteps(row, from, to, mask, pi);
            return;
        }
        int q = from / pi;
        int last = (to - 1) / pi;
        if (last - q >= DIRECT_STEPS) {
            fillRange(row, from, to, singlePorts ? materialize(mask) : slot(mask), pi);
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

    /**
     * Formulas (3)-(4) with {@code Π_s = 1} and one port per group, candidates in one word: the
     * ports cycle through the candidates' ports, {@code port(d) = C[d mod #C]}. {@code C} is
     * assembled from the octet tables three times over in {@link #rotation}, so that any range of
     * up to {@code 2 #C} destinations is one copy from offset {@code from mod #C}; longer ranges
     * copy one period and double it. This is a leaf's case, where a degraded fabric leaves
     * thousands of short runs with distinct candidates.
     */
    private void fillRotation(byte[] row, int from, int to, long bits) {
        int n = Long.bitCount(bits);
        if (n == 0) {
            Arrays.fill(row, from, to, NO_ROUTE);
            return;
        }
        int len = to - from;
        int copies = len <= n ? 2 : 3;
        // The ports of each non-empty octet, then C written `copies` times, each copy after the
        // previous one so that it overwrites the spill of the previous copy's last 8-byte store.
        int octetCount = 0;
        for (int o = 0; bits != 0; o++, bits >>>= 8) {
            int b = (int) (bits & 0xff);
            if (b != 0) {
                packed[octetCount] = octet(o)[(o << 8) + b];
                packedCount[octetCount++] = Integer.bitCount(b);
            }
        }
        for (int c = 0, at = 0; c < copies; c++) {
            for (int i = 0; i < octetCount; i++) {
                ByteLanes.set(rotation, at, packed[i]);
                at += packedCount[i];
            }
        }
        int r = from % n;
        if (len <= 2 * n) {
            int i = 0;
            for (; i + 8 <= len; i += 8) {
                ByteLanes.set(row, from + i, ByteLanes.get(rotation, r + i));
            }
            for (; i < len; i++) {
                row[from + i] = rotation[r + i];
            }
        } else {
            System.arraycopy(rotation, r, row, from, n);
            RowPatterns.replicate(row, from, n, to);
        }
    }

    /**
     * Formulas (3)-(4) with one port per group, candidates in one word, over a range shorter than two
     * periods of {@code q} ({@code 2 Π_s #C} destinations): {@code port(d) = C[floor(d / Π_s) mod #C]},
     * written step by step ({@code Π_s} equal entries each) from the candidates' ports in order
     * ({@link #materialize}), with no period set-up. This is a level-2 switch's destination pod whose top switches
     * lost a link: on a degraded fabric, dozens of pods per row, each with its own candidates. The selector path (a
     * sequence materialised into a slot, then {@link #fillRange}'s period set-up for a range that never repeats it)
     * cost more per pod (an A/B in one JVM); the intact fabric is unchanged (its rows are painted over whole
     * periods, which stay with {@link #fillRange}).
     */
    private void fillSteps(byte[] row, int from, int to, long[] mask, int pi) {
        int n = Long.bitCount(mask[0]);
        if (n == 0) {
            Arrays.fill(row, from, to, NO_ROUTE);
            return;
        }
        byte[] steps = slotSequence;
        int at = materialize(mask) * SEQUENCE_MAX;
        int q = from / pi;
        int r = q % n;
        int d = from;
        int into = from - q * pi;
        if (into != 0) {
            // the rest of a step begun before from
            int stop = Math.min(to, from - into + pi);
            RowPatterns.fill(row, d, stop, steps[at + r]);
            d = stop;
            r = r + 1 == n ? 0 : r + 1;
        }
        if (pi == straight) {
            // Steps of one destination leaf of 32 nodes as four broadcast stores (see fillRange), in
            // stretches over which r does not wrap, so the loop carries no wrap test.
            while (d + 32 <= to) {
                int end = Math.min(d + 32 * (n - r), to - 31);
                for (; d < end; d += 32, r++) {
                    long v = ByteLanes.ONES * (steps[at + r] & 0xffL);
                    ByteLanes.set(row, d, v);
                    ByteLanes.set(row, d + 8, v);
                    ByteLanes.set(row, d + 16, v);
                    ByteLanes.set(row, d + 24, v);
                }
                if (r == n) {
                    r = 0;
                }
            }
        } else {
            for (; d + pi <= to; d += pi) {
                RowPatterns.fill(row, d, d + pi, steps[at + r]);
                r = r + 1 == n ? 0 : r + 1;
            }
        }
        if (d < to) {
            RowPatterns.fill(row, d, to, steps[at + r]);
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

    /**
     * For a switch whose groups have one port each: the candidates' ports in group order are the
     * whole sequence over {@code q} (period {@code #C}), assembled eight groups at a time from the
     * octet tables into the scratch slot {@link #SLOTS}, which is returned. No cache: a degraded
     * fabric gives a leaf hundreds of distinct candidate sets, each used once or twice.
     */
    private int materialize(long[] mask) {
        int seq = SLOTS * SEQUENCE_MAX;
        int n = 0;
        for (int i = 0; i < w; i++) {
            // only the octets with candidates (a level-2 switch's up groups are its upper four)
            for (long bits = mask[i]; bits != 0; ) {
                int at = Long.numberOfTrailingZeros(bits) >>> 3;
                int b = (int) (bits >>> (8 * at)) & 0xff;
                int o = i * 8 + at;
                ByteLanes.set(slotSequence, seq + n, octet(o)[(o << 8) + b]);
                n += Integer.bitCount(b);
                bits &= ~(0xffL << (8 * at));
            }
        }
        slotCount[SLOTS] = n;
        slotPeriod[SLOTS] = n;
        return SLOTS;
    }

    /** The table of group octet {@code o} of the current switch, built on first use; returns {@link #octets}. */
    private long[] octet(int o) {
        if (octetEpoch[o] != epoch) {
            octetEpoch[o] = epoch;
            int at = o << 8;
            octets[at] = 0;
            for (int b = 1; b < 256; b++) {
                int g = g0 + o * 8 + Integer.numberOfTrailingZeros(b);
                long port = g < groupPortStart.length - 1 ? groupPorts[groupPortStart[g]] & 0xffL : 0;
                octets[at + b] = port | (octets[at + (b & (b - 1))] << 8);
            }
        }
        return octets;
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
        } else if (pi == straight) {
            // Steps of one destination leaf of 32 nodes (a level-2 switch above such leaves): whole
            // steps as four broadcast stores, straight; C2 gives RowPatterns.fill's loops per step
            // more overhead than the stores, and a degraded fabric's level-2 rows rewrite most of
            // their destination pods step by step (an A/B in one JVM).
            int d = from;
            if (run != pi) {
                int stop = Math.min(d + run, limit);
                RowPatterns.fill(row, d, stop, slotSequence[seq + r]);
                d = stop;
                if (++r == period) {
                    r = 0;
                }
            }
            byte[] sequence = slotSequence;
            for (; d + 32 <= limit; d += 32) {
                long v = ByteLanes.ONES * (sequence[seq + r] & 0xffL);
                ByteLanes.set(row, d, v);
                ByteLanes.set(row, d + 8, v);
                ByteLanes.set(row, d + 16, v);
                ByteLanes.set(row, d + 24, v);
                r = r + 1 == period ? 0 : r + 1;
            }
            if (d < limit) {
                RowPatterns.fill(row, d, limit, sequence[seq + r]);
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
