package org.fabricmanager.routing.dmodc.fill;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.dmodc.preprocess.ByteLanes;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.routing.dmodc.shared.SharedRows;

/**
 * Formulas (3)-(4) for switches with {@code Π_s = 1} whose groups have one port each and whose
 * candidates are given as a mask over the rows of one {@link SharedRows} set ("positions", at most
 * 64): {@code port(d) = C[d mod #C]}, {@code C} the ports of the set positions in ascending order.
 * This is a leaf's row in a degraded fat tree: thousands of short runs (one destination leaf each)
 * whose candidates are the pod's switches minus a few, a different few almost every time.
 *
 * <p>Each candidate set's sequence {@code C} is written three times over into a buffer and kept in
 * a small direct-mapped cache keyed by the mask, so that a run is one lookup and a copy from offset
 * {@code from mod #C}. A degraded row repeats about half its candidate sets (destination leaves
 * that lost the same uplink). The cache survives from switch to switch as long as the switches
 * agree on the port of every position they share (the leaves of one pod, numbered alike), so the
 * leaves of a pod share their sets too. One instance per worker thread.
 */
final class RotationRuns {
    private static final byte NO_ROUTE = (byte) ForwardingTables.NO_ROUTE;
    private static final int POSITIONS = SharedRows.MAX_MEMBERS;
    private static final int SLOT_BITS = 10;
    private static final int SLOTS = 1 << SLOT_BITS;
    /** Three copies of at most 64 ports plus the spill of an eight-byte store. */
    private static final int STRIDE = 3 * POSITIONS + 8;
    /** {@code floor(d / n)} as {@code (d * MAGIC[n]) >>> 32}, exact for {@code d < 2^26}. */
    private static final long[] MAGIC = new long[POSITIONS + 1];
    private static final int MAGIC_LIMIT = 1 << 26;

    static {
        for (int n = 1; n <= POSITIONS; n++) {
            MAGIC[n] = ((1L << 32) + n - 1) / n;
        }
    }

    /** Port of each position under the current context; 0 where no switch of the context has it. */
    private final byte[] port = new byte[POSITIONS];
    private long known;
    private final long[] slotKey = new long[SLOTS];
    private final int[] slotEpoch = new int[SLOTS];
    private final byte[] sequences = new byte[SLOTS * STRIDE];
    private int epoch;
    private final long[] octets = new long[8 * 256];
    /** Whether octet {@code o}'s table holds the ports of {@link #port}. */
    private final boolean[] octetBuilt = new boolean[8];
    private final byte[] preparedSequence = new byte[STRIDE];
    private int prepared;
    private final long[] packed = new long[8];
    private final int[] packedCount = new int[8];
    /** Whether the cache and octet tables are kept from switch to switch ({@link DmodcShortcuts.Shortcut#ROTATION_CACHE}). */
    private final boolean keep;
    /** The run length written as four straight stores: 32, or -1 without {@link DmodcShortcuts.Shortcut#STRAIGHT_32}. */
    private final int straight;
    private final DmodcShortcuts shortcuts;

    RotationRuns() {
        this(DmodcShortcuts.ALL);
    }

    /** Taking only the {@code shortcuts} given ({@link DmodcShortcuts.Shortcut#ROTATION_CACHE}, {@link DmodcShortcuts.Shortcut#STRAIGHT_32}). */
    RotationRuns(DmodcShortcuts shortcuts) {
        epoch = 1;
        this.keep = shortcuts.on(DmodcShortcuts.Shortcut.ROTATION_CACHE);
        this.straight = shortcuts.on(DmodcShortcuts.Shortcut.STRAIGHT_32) ? 32 : -1;
        this.shortcuts = shortcuts;
    }

    /**
     * Starts a switch whose positions {@code has} reach the ports {@code ports[j]}. Cached
     * sequences are kept when every position the switch has and the context knows has the same
     * port; otherwise they are forgotten and the context starts again from this switch.
     */
    void begin(long has, byte[] ports) {
        long common = has & known;
        boolean consistent = keep;
        for (long bits = common; bits != 0 && consistent; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            consistent = port[j] == ports[j];
        }
        if (!consistent) {
            if (++epoch == 0) {
                Arrays.fill(slotEpoch, 0);
                epoch = 1;
            }
            known = 0;
        } else if (known != 0) {
            shortcuts.hit(DmodcShortcuts.Shortcut.ROTATION_CACHE);
        }
        long added = has & ~known;
        if (added != 0) {
            for (long bits = added; bits != 0; bits &= bits - 1) {
                int j = Long.numberOfTrailingZeros(bits);
                port[j] = ports[j];
            }
            known |= added;
            // Only the octets with a new port are rebuilt: in a degraded pod each leaf brings
            // back the one or two positions the previous leaves lacked, so this is one table of
            // four instead of all four per leaf. A table's entries for positions outside `known`
            // are never read, as every mask looked up is a subset of the switch's positions.
            for (int o = 0; o < 8; o++) {
                if ((added >>> (8 * o) & 0xff) != 0) {
                    octetBuilt[o] = false;
                }
            }
        }
        // Built now rather than on first use, so that triple() reads the tables of a set of at
        // most 32 positions without a check per octet.
        for (int o = 0; o < 8; o++) {
            if ((has >>> (8 * o) & 0xff) != 0 && !octetBuilt[o]) {
                octet(o, 0);
            }
        }
    }

    /** Writes {@code port(d) = C[d mod #C]} over {@code [from, to)}, {@code C} the ports of {@code y} (a subset of the switch's positions). */
    void fill(byte[] row, int from, int to, long y) {
        int n = Long.bitCount(y);
        if (n == 0) {
            Arrays.fill(row, from, to, NO_ROUTE);
            return;
        }
        copy(row, from, to, sequences, slot(y, n), n);
    }

    /**
     * Builds the tripled sequence of {@code y} (a subset of the switch's positions) outside
     * the cache, for {@link #write}: for a candidate set whose runs are all known at once, which
     * needs no lookup.
     */
    void prepare(long y) {
        prepared = Long.bitCount(y);
        triple(y, preparedSequence, 0);
    }

    /** {@link #fill} over {@code [from, to)} with the set of the last {@link #prepare}. */
    void write(byte[] row, int from, int to) {
        if (prepared == 0) {
            Arrays.fill(row, from, to, NO_ROUTE);
            return;
        }
        copy(row, from, to, preparedSequence, 0, prepared);
    }

    /** {@code port(d) = C[d mod n]} over {@code [from, to)} from {@code C} tripled at {@code source[at ..]}. */
    private void copy(byte[] row, int from, int to, byte[] source, int at, int n) {
        int r = from < MAGIC_LIMIT ? from - n * (int) ((from * MAGIC[n]) >>> 32) : from % n;
        int len = to - from;
        if (len == straight && n >= 16) {
            // One destination leaf of 32 nodes, the common case of a degraded leaf row (r + 32 <= 3n):
            // four straight copies, cheaper than the loop below (an A/B in one JVM, one routing
            // thread): C2 gives a loop of four iterations and a tail far more overhead than the
            // copies themselves.
            int src = at + r;
            ByteLanes.set(row, from, ByteLanes.get(source, src));
            ByteLanes.set(row, from + 8, ByteLanes.get(source, src + 8));
            ByteLanes.set(row, from + 16, ByteLanes.get(source, src + 16));
            ByteLanes.set(row, from + 24, ByteLanes.get(source, src + 24));
            return;
        }
        if (len <= 2 * n) {
            // r + len < 3n: one copy from the tripled sequence
            int src = at + r;
            int i = 0;
            for (; i + 8 <= len; i += 8) {
                ByteLanes.set(row, from + i, ByteLanes.get(source, src + i));
            }
            for (; i < len; i++) {
                row[from + i] = source[src + i];
            }
        } else {
            System.arraycopy(source, at + r, row, from, n);
            RowPatterns.replicate(row, from, n, to);
        }
    }

    /** Offset in {@link #sequences} of {@code y}'s tripled sequence, built on a miss. */
    private int slot(long y, int n) {
        int slot = (int) ((y * 0x9E3779B97F4A7C15L) >>> (64 - SLOT_BITS));
        int at = slot * STRIDE;
        if (slotEpoch[slot] == epoch && slotKey[slot] == y) {
            return at;
        }
        slotEpoch[slot] = epoch;
        slotKey[slot] = y;
        triple(y, sequences, at);
        return at;
    }

    /** The ports of {@code y}'s positions in ascending order, three times over, into {@code out[at ..]}. */
    private void triple(long y, byte[] out, int at) {
        if (y >>> 32 == 0) {
            // Positions 0-31 (a pod of up to 32 switches), without branches: an octet without
            // candidates packs nothing (entry 0 is 0) and advances by 0, so its store is
            // overwritten by the next one. The tables of the switch's octets are built (begin).
            int b0 = (int) y & 0xff;
            int b1 = (int) (y >>> 8) & 0xff;
            int b2 = (int) (y >>> 16) & 0xff;
            int b3 = (int) (y >>> 24) & 0xff;
            long p0 = octets[b0];
            long p1 = octets[256 + b1];
            long p2 = octets[512 + b2];
            long p3 = octets[768 + b3];
            int c0 = Integer.bitCount(b0);
            int c1 = Integer.bitCount(b1);
            int c2 = Integer.bitCount(b2);
            int c3 = Integer.bitCount(b3);
            int n = c0 + c1 + c2 + c3;
            // The three copies written straight rather than by a loop of three (see copy).
            int e1 = c0;
            int e2 = c0 + c1;
            int e3 = e2 + c2;
            ByteLanes.set(out, at, p0);
            ByteLanes.set(out, at + e1, p1);
            ByteLanes.set(out, at + e2, p2);
            ByteLanes.set(out, at + e3, p3);
            int to = at + n;
            ByteLanes.set(out, to, p0);
            ByteLanes.set(out, to + e1, p1);
            ByteLanes.set(out, to + e2, p2);
            ByteLanes.set(out, to + e3, p3);
            to += n;
            ByteLanes.set(out, to, p0);
            ByteLanes.set(out, to + e1, p1);
            ByteLanes.set(out, to + e2, p2);
            ByteLanes.set(out, to + e3, p3);
            return;
        }
        int count = 0;
        long bits = y;
        for (int o = 0; bits != 0; o++, bits >>>= 8) {
            int b = (int) (bits & 0xff);
            if (b != 0) {
                packed[count] = octet(o, b);
                packedCount[count++] = Integer.bitCount(b);
            }
        }
        // Three copies in order, each overwriting the spill of the previous one's last store.
        int to = at;
        for (int c = 0; c < 3; c++) {
            for (int i = 0; i < count; i++) {
                ByteLanes.set(out, to, packed[i]);
                to += packedCount[i];
            }
        }
    }

    /** The ports of the positions {@code 8o + i} for the bits {@code i} of {@code b}, packed lowest first. */
    private long octet(int o, int b) {
        int base = o << 8;
        if (!octetBuilt[o]) {
            octetBuilt[o] = true;
            octets[base] = 0;
            for (int x = 1; x < 256; x++) {
                int j = o * 8 + Integer.numberOfTrailingZeros(x);
                octets[base + x] = (port[j] & 0xffL) | (octets[base + (x & (x - 1))] << 8);
            }
        }
        return octets[base + b];
    }
}
