package org.fabricmanager.routing.dmodc;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;

/**
 * Formulas (1)-(4) for all switches: the forwarding table row of each switch, one worker per
 * switch at a time.
 *
 * <p>The candidate groups {@code C_{s,λ}} of formula (1) are bit masks over the groups of
 * {@code s}. With the {@link RowProfiles} (each cost row as a mode plus a few segments of other
 * costs), a sweep over the leaves meets only the segment boundaries of {@code s} and its
 * neighbours: in between, every cost involved is constant and so is the mask, and the leaves there
 * are routed as one destination range. Rows without a profile fall back to comparing whole rows,
 * eight leaves and eight groups at a time ({@link ByteLanes}).
 *
 * <p>Each distinct mask becomes a "selector": the candidate list and, when short, the periodic
 * sequence of ports over {@code q = floor(d / Π_s)}, cached per switch. Consecutive leaves with
 * the same candidates and adjacent destinations form one run, written one period at a time and
 * then copied ({@link RowPatterns}). The result is entry for entry what formulas (1)-(4) give.
 */
final class RouteFill {
    private static final int GRAIN = 8;
    private static final byte NO_ROUTE = (byte) ForwardingTables.NO_ROUTE;

    private final FabricIndex index;
    private final CostTable costs;
    private final int[] divider;
    private final LeafDestinations destinations;
    private final int[] groupStart;
    private final int[] groupNeighbour;
    private final int[] groupPortStart;
    private final int[] groupPorts;
    private final int maxGroups;
    private final RowProfiles profiles;

    RouteFill(FabricIndex index, CostTable costs, int[] divider, RowProfiles profiles, LeafDestinations destinations) {
        this.index = index;
        this.costs = costs;
        this.divider = divider;
        this.destinations = destinations;
        this.groupStart = index.groupStartArray();
        this.groupNeighbour = index.groupNeighbourArray();
        this.groupPortStart = index.groupPortStartArray();
        this.groupPorts = index.groupPortArray();
        int most = 0;
        for (int s = 0; s < index.switchCount(); s++) {
            most = Math.max(most, index.groupCount(s));
        }
        this.maxGroups = most;
        this.profiles = profiles;
    }

    /** All rows, switches in parallel. */
    byte[][] computeAll(RoutingPool pool) {
        int switches = index.switchCount();
        byte[][] rows = new byte[switches][];
        Worker[] workers = new Worker[pool.threads()];
        pool.forRange(rows.length, GRAIN, (w, from, to) -> {
            Worker worker = workers[w];
            if (worker == null) {
                worker = new Worker();
                workers[w] = worker;
            }
            for (int s = from; s < to; s++) {
                rows[s] = worker.row(s);
            }
        });
        return rows;
    }

    /** One thread's scratch space, reused from switch to switch. */
    private final class Worker {
        private static final int SLOT_BITS = 8;
        private static final int SLOTS = 1 << SLOT_BITS;
        private static final int SEQUENCE_MAX = 512;
        /** Runs over at most this many values of q are written without a selector. */
        private static final int DIRECT_STEPS = 4;

        private final int leaves = costs.leafCount();
        private final int words = Math.max(1, (maxGroups + 63) >>> 6);
        private final byte[] masks = new byte[leaves * words * 8];
        private final int[] neighbourRow = new int[8];
        private final long[] mask = new long[words];
        private final long[] runMask = new long[words];
        private final long[] base = new long[words];
        private boolean painted;

        private final long[] slotKey = new long[SLOTS * words];
        private final int[] slotEpoch = new int[SLOTS];
        private final int[] slotCount = new int[SLOTS];
        private final int[] slotCandidates = new int[SLOTS * Math.max(1, maxGroups)];
        private final int[] slotPeriod = new int[SLOTS];
        private final byte[] slotSequence = new byte[SLOTS * SEQUENCE_MAX];
        private int epoch;

        // The sweep's events: per leaf position, the rows whose cost changes there.
        private final long[] positions = new long[(leaves + 64) >>> 6];
        private final int[] positionStamp = new int[leaves + 1];
        private final int[] startHead = new int[leaves + 1];
        private final int[] endHead = new int[leaves + 1];
        private int[] eventRow = new int[64];
        private int[] eventValue = new int[64];
        private int[] eventNext = new int[64];
        private int events;
        private int eventEpoch;
        private int[] current = new int[0];
        private int[] modes = new int[0];

        // The open run: destinations [runFrom, runTo) sharing the selector in runSlot (runMask).
        private int runFrom;
        private int runTo;
        private int runSlot;

        // The switch being routed.
        private int g0;
        private int w;
        private int pi;
        private int ownLeaf;

        byte[] row(int s) {
            byte[] row = new byte[index.destinationCount()];
            ownLeaf = index.leafNumber(s);
            g0 = groupStart[s];
            int k = groupStart[s + 1] - g0;
            if (k == 0) {
                for (int leaf = 0; leaf < leaves; leaf++) {
                    if (leaf != ownLeaf) {
                        noRoute(row, leaf);
                    }
                }
            } else {
                routeLeaves(row, s, k);
            }
            // Last, as the base pattern may have been painted over them.
            int[] gaps = destinations.gaps();
            for (int i = 0; i < gaps.length; i += 2) {
                Arrays.fill(row, gaps[i], gaps[i + 1], NO_ROUTE);
            }
            if (ownLeaf != FabricIndex.NONE) {
                for (int i = destinations.start(ownLeaf); i < destinations.start(ownLeaf + 1); i++) {
                    row[destinations.destination(i)] = (byte) destinations.port(i);
                }
            }
            return row;
        }

        private void routeLeaves(byte[] row, int s, int k) {
            w = (k + 63) >>> 6;
            pi = divider[s];
            if (++epoch == 0) {
                Arrays.fill(slotEpoch, 0);
                epoch = 1;
            }
            runFrom = -1;
            boolean profiled = profiles.segments(s) != null;
            for (int i = 0; i < k && profiled; i++) {
                profiled = profiles.segments(groupNeighbour[g0 + i]) != null;
            }
            painted = false;
            if (profiled) {
                sweep(row, s, k);
            } else {
                computeMasksDense(s, k);
                walkAll(row, s);
            }
            flush(row);
        }

        /**
         * Formulas (1)-(4) from the row profiles of {@code s} and its neighbours: between two
         * consecutive segment boundaries (of any of these rows) every cost involved is constant, so
         * the candidates are too; the leaves in between are routed as one destination range. The
         * mask is updated at each boundary for the rows that change there only (all groups when the
         * row of {@code s} changes).
         */
        private void sweep(byte[] row, int s, int k) {
            if (++eventEpoch == 0) {
                Arrays.fill(positionStamp, 0);
                eventEpoch = 1;
            }
            Arrays.fill(positions, 0L);
            events = 0;
            if (current.length < k + 1) {
                current = new int[k + 1];
                modes = new int[k + 1];
            }
            modes[0] = profiles.mode(s);
            addEvents(0, profiles.segments(s));
            for (int i = 0; i < k; i++) {
                int t = groupNeighbour[g0 + i];
                modes[i + 1] = profiles.mode(t);
                addEvents(i + 1, profiles.segments(t));
            }
            System.arraycopy(modes, 0, current, 0, k + 1);
            Arrays.fill(mask, 0, w, 0L);
            for (int i = 0; i < k; i++) {
                if (current[i + 1] < current[0]) {
                    mask[i >>> 6] |= 1L << i;
                }
            }
            // Paint the whole row with the base candidates (every row at its mode), which hold
            // for most leaves; the sweep then only writes where something else holds.
            int all = 0;
            for (int i = 0; i < w; i++) {
                all |= mask[i] != 0 ? 1 : 0;
            }
            if (all != 0 && modes[0] != CostTable.INFINITE && modes[0] != 0) {
                System.arraycopy(mask, 0, base, 0, w);
                fillRange(row, 0, row.length, selector(base), pi);
                painted = true;
            }
            int previous = 0;
            for (int word = 0; word < positions.length; word++) {
                long bits = positions[word];
                while (bits != 0) {
                    int p = (word << 6) + Long.numberOfTrailingZeros(bits);
                    bits &= bits - 1;
                    if (previous < p) {
                        interval(row, previous, p);
                    }
                    previous = p;
                    boolean own = false;
                    for (int e = endHead[p]; e >= 0; e = eventNext[e]) {
                        own |= apply(e, k);
                    }
                    for (int e = startHead[p]; e >= 0; e = eventNext[e]) {
                        own |= apply(e, k);
                    }
                    if (own) {
                        Arrays.fill(mask, 0, w, 0L);
                        for (int i = 0; i < k; i++) {
                            if (current[i + 1] < current[0]) {
                                mask[i >>> 6] |= 1L << i;
                            }
                        }
                    }
                }
            }
            if (previous < leaves) {
                interval(row, previous, leaves);
            }
        }

        /** Row {@code eventRow[e]} takes the event's cost; true when it is the row of s itself. */
        private boolean apply(int e, int k) {
            int r = eventRow[e];
            current[r] = eventValue[e];
            if (r == 0) {
                return true;
            }
            int i = r - 1;
            if (current[r] < current[0]) {
                mask[i >>> 6] |= 1L << i;
            } else {
                mask[i >>> 6] &= ~(1L << i);
            }
            return false;
        }

        private void addEvents(int r, int[] segments) {
            for (int g = 0; g < segments.length; g += 3) {
                addEvent(segments[g], r, segments[g + 2], true);
                addEvent(segments[g + 1], r, modes[r], false);
            }
        }

        private void addEvent(int p, int r, int value, boolean start) {
            if (events == eventRow.length) {
                eventRow = Arrays.copyOf(eventRow, events * 2);
                eventValue = Arrays.copyOf(eventValue, events * 2);
                eventNext = Arrays.copyOf(eventNext, events * 2);
            }
            if (positionStamp[p] != eventEpoch) {
                positionStamp[p] = eventEpoch;
                startHead[p] = -1;
                endHead[p] = -1;
                positions[p >>> 6] |= 1L << p;
            }
            eventRow[events] = r;
            eventValue[events] = value;
            if (start) {
                eventNext[events] = startHead[p];
                startHead[p] = events;
            } else {
                eventNext[events] = endHead[p];
                endHead[p] = events;
            }
            events++;
        }

        /** Leaves {@code [from, to)}: the cost of s and the candidates are those of the sweep's current state. */
        private void interval(byte[] row, int from, int to) {
            int cost = current[0];
            if (cost == 0) {
                return; // the own leaf: its ports are written
            }
            if (painted && cost != CostTable.INFINITE) {
                // the ports depend on the candidates only: the painted ones are right here
                boolean same = true;
                for (int i = 0; i < w; i++) {
                    same &= mask[i] == base[i];
                }
                if (same) {
                    return;
                }
            }
            int leaf = from;
            while (leaf < to) {
                if (!destinations.contiguous(leaf)) {
                    if (cost == CostTable.INFINITE) {
                        noRoute(row, leaf);
                    } else {
                        flush(row);
                        fillScattered(row, leaf, selector(mask), pi);
                    }
                    leaf++;
                    continue;
                }
                int last = Math.min(destinations.chainEnd(leaf), to - 1);
                int d0 = destinations.first(leaf);
                int d1 = destinations.first(last) + destinations.count(last);
                if (cost == CostTable.INFINITE) {
                    Arrays.fill(row, d0, d1, NO_ROUTE);
                } else {
                    add(row, d0, d1);
                }
                leaf = last + 1;
            }
        }

        /** Every leaf one by one, with masks from {@link #computeMasksDense}. */
        private void walkAll(byte[] row, int s) {
            byte[] c = costs.array();
            int costRow = s * leaves;
            for (int leaf = 0; leaf < leaves; leaf++) {
                if (leaf == ownLeaf) {
                    continue;
                }
                if (c[costRow + leaf] == CostTable.INFINITE) {
                    noRoute(row, leaf);
                    continue;
                }
                for (int i = 0; i < w; i++) {
                    mask[i] = ByteLanes.get(masks, (leaf * w + i) * 8);
                }
                if (destinations.contiguous(leaf)) {
                    int d0 = destinations.first(leaf);
                    add(row, d0, d0 + destinations.count(leaf));
                } else {
                    flush(row);
                    fillScattered(row, leaf, selector(mask), pi);
                }
            }
        }

        /**
         * Destinations {@code [d0, d1)} take the candidates in {@link #mask}: they extend the open
         * run when adjacent with the same candidates, or start a new one.
         */
        private void add(byte[] row, int d0, int d1) {
            if (runFrom >= 0 && d0 == runTo) {
                boolean same = true;
                for (int i = 0; i < w; i++) {
                    same &= mask[i] == runMask[i];
                }
                if (same) {
                    runTo = d1;
                    return;
                }
            }
            flush(row);
            System.arraycopy(mask, 0, runMask, 0, w);
            runFrom = d0;
            runTo = d1;
        }

        /**
         * Writes the open run. A run spanning only a few values of {@code q = floor(d / Π_s)}
         * takes its ports straight from the mask; longer ones go through a cached selector.
         */
        private void flush(byte[] row) {
            if (runFrom < 0) {
                return;
            }
            int from = runFrom;
            int to = runTo;
            runFrom = -1;
            int q = from / pi;
            int last = (to - 1) / pi;
            if (last - q >= DIRECT_STEPS) {
                fillRange(row, from, to, selector(runMask), pi);
                return;
            }
            int n = 0;
            for (int i = 0; i < w; i++) {
                n += Long.bitCount(runMask[i]);
            }
            if (n == 0) {
                Arrays.fill(row, from, to, NO_ROUTE);
                return;
            }
            for (int d = from; q <= last; q++) {
                int stop = (int) Math.min((q + 1L) * pi, to);
                int g = g0 + selectBit(runMask, q % n);
                int size = groupSize(g);
                int port = groupPorts[groupPortStart[g] + (size == 1 ? 0 : (q / n) % size)];
                RowPatterns.fill(row, d, stop, (byte) port);
                d = stop;
            }
        }

        /** Index of the {@code r}-th (from 0) set bit of {@code bits}. */
        private int selectBit(long[] bits, int r) {
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

        private void noRoute(byte[] row, int leaf) {
            if (destinations.contiguous(leaf)) {
                int d0 = destinations.first(leaf);
                Arrays.fill(row, d0, d0 + destinations.count(leaf), NO_ROUTE);
            } else {
                for (int i = destinations.start(leaf); i < destinations.start(leaf + 1); i++) {
                    row[destinations.destination(i)] = NO_ROUTE;
                }
            }
        }

        /** Formula (1) by comparing whole rows, eight leaves and eight groups per step. */
        private void computeMasksDense(int s, int k) {
            byte[] c = costs.array();
            int own = s * leaves;
            int wide = leaves & ~7;
            int stride = w * 8;
            int blocks = w * 8;
            for (int b = 0; b < blocks; b++) {
                int first = b * 8;
                int n = Math.max(0, Math.min(8, k - first));
                for (int i = 0; i < n; i++) {
                    neighbourRow[i] = groupNeighbour[g0 + first + i] * leaves;
                }
                for (int l = 0; l < wide; l += 8) {
                    long mine = ByteLanes.get(c, own + l);
                    long bits = 0;
                    for (int i = 0; i < n; i++) {
                        bits |= ByteLanes.lessThan(ByteLanes.get(c, neighbourRow[i] + l), mine) >>> (7 - i);
                    }
                    int at = l * stride + b;
                    masks[at] = (byte) bits;
                    masks[at + stride] = (byte) (bits >>> 8);
                    masks[at + 2 * stride] = (byte) (bits >>> 16);
                    masks[at + 3 * stride] = (byte) (bits >>> 24);
                    masks[at + 4 * stride] = (byte) (bits >>> 32);
                    masks[at + 5 * stride] = (byte) (bits >>> 40);
                    masks[at + 6 * stride] = (byte) (bits >>> 48);
                    masks[at + 7 * stride] = (byte) (bits >>> 56);
                }
                for (int l = wide; l < leaves; l++) {
                    int bits = 0;
                    for (int i = 0; i < n; i++) {
                        if (c[neighbourRow[i] + l] < c[own + l]) {
                            bits |= 1 << i;
                        }
                    }
                    masks[l * stride + b] = (byte) bits;
                }
            }
        }

        /** The cache slot holding the selector of {@code key}, built on a miss. */
        private int selector(long[] key) {
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
            // Ports repeat with period #C × lcm(group sizes) in q: (q mod #C) and (floor(q/#C) mod #g) both do.
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

        /** Formulas (3) and (4) for {@code q = floor(d / Π_s)}. */
        private int portOf(int at, int n, int q) {
            int g = slotCandidates[at + q % n];
            int size = groupSize(g);
            int j = size == 1 ? 0 : (q / n) % size;
            return groupPorts[groupPortStart[g] + j];
        }

        private int groupSize(int g) {
            return groupPortStart[g + 1] - groupPortStart[g];
        }

        /** Formulas (3)-(4) over the destination range {@code [from, to)}, all with the selector in {@code slot}. */
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
                    Arrays.fill(row, d, stop, (byte) portOf(at, n, q));
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

        /** Formulas (3)-(4) for a leaf whose destinations are not one range, entry by entry. */
        private void fillScattered(byte[] row, int leaf, int slot, int pi) {
            int n = slotCount[slot];
            int period = slotPeriod[slot];
            int at = slot * maxGroups;
            int seq = slot * SEQUENCE_MAX;
            for (int i = destinations.start(leaf); i < destinations.start(leaf + 1); i++) {
                int d = destinations.destination(i);
                int q = d / pi;
                row[d] = n == 0 ? NO_ROUTE : period > 0 ? slotSequence[seq + q % period] : (byte) portOf(at, n, q);
            }
        }
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
