package org.fabricmanager.routing.dmodc;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;

/**
 * Formulas (1)-(4) for all switches: the forwarding table row of each switch, one worker per
 * switch at a time. Per switch, the candidate groups {@code C_{s,λ}} (formula (1)) are found for
 * all leaves at once as bit masks, eight leaves by eight groups per step ({@link ByteLanes}); each
 * distinct mask then becomes a "selector" (the candidate list and, when short, the periodic
 * sequence of ports over {@code q = floor(d / Π_s)}), cached per switch because most leaves share
 * a handful of masks. A leaf whose destinations are contiguous is filled run by run: a port
 * changes only every {@code Π_s} destinations.
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

        private final int leaves = costs.leafCount();
        private final int words = Math.max(1, (maxGroups + 63) >>> 6);
        private final byte[] masks = new byte[leaves * words * 8];
        private final int[] neighbourRow = new int[8];
        private final long[] mask = new long[words];
        private final long[] base = new long[words];
        private final int[] marked = new int[leaves];
        private int markEpoch;

        private final long[] slotKey = new long[SLOTS * words];
        private final int[] slotEpoch = new int[SLOTS];
        private final int[] slotCount = new int[SLOTS];
        private final int[] slotCandidates = new int[SLOTS * Math.max(1, maxGroups)];
        private final int[] slotPeriod = new int[SLOTS];
        private final byte[] slotSequence = new byte[SLOTS * SEQUENCE_MAX];
        private int epoch;

        byte[] row(int s) {
            byte[] row = new byte[index.destinationCount()];
            int[] gaps = destinations.gaps();
            for (int i = 0; i < gaps.length; i += 2) {
                Arrays.fill(row, gaps[i], gaps[i + 1], NO_ROUTE);
            }
            int ownLeaf = index.leafNumber(s);
            if (ownLeaf != FabricIndex.NONE) {
                for (int i = destinations.start(ownLeaf); i < destinations.start(ownLeaf + 1); i++) {
                    row[destinations.destination(i)] = (byte) destinations.port(i);
                }
            }
            int g0 = groupStart[s];
            int k = groupStart[s + 1] - g0;
            byte[] c = costs.array();
            int costRow = s * leaves;
            if (k == 0) {
                for (int leaf = 0; leaf < leaves; leaf++) {
                    if (leaf != ownLeaf) {
                        noRoute(row, leaf);
                    }
                }
                return row;
            }
            int w = (k + 63) >>> 6;
            computeMasks(s, g0, k, w);
            if (++epoch == 0) {
                Arrays.fill(slotEpoch, 0);
                epoch = 1;
            }
            int pi = divider[s];
            // Consecutive leaves with the same candidates and adjacent destinations form one run,
            // filled in one go: a run's selector slot stays untouched until the run is flushed.
            int runFrom = -1;
            int runTo = -1;
            int runSlot = -1;
            for (int leaf = 0; leaf < leaves; leaf++) {
                if (leaf == ownLeaf) {
                    continue;
                }
                if (c[costRow + leaf] == CostTable.INFINITE) {
                    noRoute(row, leaf);
                    continue;
                }
                boolean same;
                if (w == 1) {
                    long m = ByteLanes.get(masks, leaf * 8);
                    same = m == mask[0];
                    mask[0] = m;
                } else {
                    same = true;
                    for (int i = 0; i < w; i++) {
                        long m = ByteLanes.get(masks, (leaf * w + i) * 8);
                        same &= m == mask[i];
                        mask[i] = m;
                    }
                }
                int from = destinations.start(leaf);
                int count = destinations.start(leaf + 1) - from;
                if (destinations.contiguous(leaf)) {
                    int d0 = destinations.destination(from);
                    if (same && runFrom >= 0 && d0 == runTo) {
                        runTo += count;
                        continue;
                    }
                    if (runFrom >= 0) {
                        fillRange(row, runFrom, runTo, runSlot, pi);
                    }
                    runSlot = selector(g0, w);
                    runFrom = d0;
                    runTo = d0 + count;
                } else {
                    if (runFrom >= 0) {
                        fillRange(row, runFrom, runTo, runSlot, pi);
                        runFrom = -1;
                    }
                    fillScattered(row, leaf, selector(g0, w), pi);
                }
            }
            if (runFrom >= 0) {
                fillRange(row, runFrom, runTo, runSlot, pi);
            }
            return row;
        }

        private void noRoute(byte[] row, int leaf) {
            int from = destinations.start(leaf);
            int to = destinations.start(leaf + 1);
            if (destinations.contiguous(leaf)) {
                int d0 = destinations.destination(from);
                Arrays.fill(row, d0, d0 + (to - from), NO_ROUTE);
            } else {
                for (int i = from; i < to; i++) {
                    row[destinations.destination(i)] = NO_ROUTE;
                }
            }
        }

        /**
         * Formula (1) for every leaf: bit {@code i} of leaf {@code λ}'s mask is set when the
         * neighbour of group {@code g0 + i} has a lower cost to {@code λ} than {@code s}. Where
         * both rows are their mode, the answer is the same for every leaf (the masks start from
         * it); only the two rows' exceptions need comparing, unless one row has no dominant mode.
         */
        private void computeMasks(int s, int g0, int k, int w) {
            int[] mine = profiles.exceptions(s);
            if (mine == null) {
                computeMasksDense(s, g0, k, w);
                return;
            }
            Arrays.fill(base, 0);
            for (int i = 0; i < k; i++) {
                int t = groupNeighbour[g0 + i];
                if (profiles.exceptions(t) != null && profiles.mode(t) < profiles.mode(s)) {
                    base[i >>> 6] |= 1L << i;
                }
            }
            if (w == 1) {
                long b = base[0];
                for (int l = 0; l < leaves; l++) {
                    ByteLanes.set(masks, l * 8, b);
                }
            } else {
                for (int l = 0; l < leaves; l++) {
                    for (int i = 0; i < w; i++) {
                        ByteLanes.set(masks, (l * w + i) * 8, base[i]);
                    }
                }
            }
            byte[] c = costs.array();
            int own = s * leaves;
            // Leaves where s is not at its mode: every group compared, the word written once.
            if (++markEpoch == 0) {
                Arrays.fill(marked, 0);
                markEpoch = 1;
            }
            for (int l : mine) {
                marked[l] = markEpoch;
                int mineCost = c[own + l];
                for (int i = 0; i < w; i++) {
                    long bits = 0;
                    int end = Math.min(k, (i + 1) * 64);
                    for (int g = i * 64; g < end; g++) {
                        bits |= (long) ((c[groupNeighbour[g0 + g] * leaves + l] - mineCost) >>> 31) << g;
                    }
                    ByteLanes.set(masks, (l * w + i) * 8, bits);
                }
            }
            // Elsewhere s is at its mode: only the neighbours' exceptions differ from the base.
            for (int i = 0; i < k; i++) {
                int t = groupNeighbour[g0 + i];
                int other = t * leaves;
                int[] theirs = profiles.exceptions(t);
                if (theirs == null) {
                    maskDenseGroup(own, other, i, w);
                    continue;
                }
                for (int l : theirs) {
                    if (marked[l] != markEpoch) {
                        setBit(l, i, w, c[other + l] < c[own + l]);
                    }
                }
            }
        }

        private void setBit(int leaf, int i, int w, boolean on) {
            int at = (leaf * w + (i >>> 6)) * 8;
            long v = ByteLanes.get(masks, at);
            ByteLanes.set(masks, at, on ? v | (1L << i) : v & ~(1L << i));
        }

        /** Formula (1) for one group whose neighbour's row has no dominant mode: the whole rows are compared. */
        private void maskDenseGroup(int own, int other, int i, int w) {
            byte[] c = costs.array();
            int wide = leaves & ~7;
            for (int l = 0; l < wide; l += 8) {
                long lt = ByteLanes.lessThan(ByteLanes.get(c, other + l), ByteLanes.get(c, own + l));
                for (int j = 0; j < 8; j++) {
                    setBit(l + j, i, w, (lt & (0x80L << (8 * j))) != 0);
                }
            }
            for (int l = wide; l < leaves; l++) {
                setBit(l, i, w, c[other + l] < c[own + l]);
            }
        }

        /** Formula (1) by comparing whole rows, eight leaves and eight groups per step. */
        private void computeMasksDense(int s, int g0, int k, int w) {
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

        /** The cache slot holding the selector of {@link #mask}, built on a miss. */
        private int selector(int g0, int w) {
            long h = 0;
            for (int i = 0; i < w; i++) {
                h = (h + mask[i]) * 0x9E3779B97F4A7C15L;
            }
            int slot = (int) (h >>> (64 - SLOT_BITS));
            if (slotEpoch[slot] == epoch) {
                boolean same = true;
                for (int i = 0; i < w; i++) {
                    if (slotKey[slot * words + i] != mask[i]) {
                        same = false;
                        break;
                    }
                }
                if (same) {
                    return slot;
                }
            }
            build(slot, g0, w);
            return slot;
        }

        /** Candidate groups in group order, and the port sequence over {@code q} when it is short. */
        private void build(int slot, int g0, int w) {
            slotEpoch[slot] = epoch;
            int base = slot * maxGroups;
            int n = 0;
            for (int i = 0; i < w; i++) {
                slotKey[slot * words + i] = mask[i];
                long bits = mask[i];
                while (bits != 0) {
                    slotCandidates[base + n++] = g0 + i * 64 + Long.numberOfTrailingZeros(bits);
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
                int size = groupSize(slotCandidates[base + i]);
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
                    slotSequence[seq + q] = (byte) groupPorts[groupPortStart[slotCandidates[base + q]]];
                }
            } else {
                for (int q = 0; q < period; q++) {
                    slotSequence[seq + q] = (byte) portOf(base, n, q);
                }
            }
            slotPeriod[slot] = period;
        }

        /** Formulas (3) and (4) for {@code q = floor(d / Π_s)}. */
        private int portOf(int base, int n, int q) {
            int g = slotCandidates[base + q % n];
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
                int base = slot * maxGroups;
                for (int d = from; d < to; q++) {
                    int stop = (int) Math.min((long) d + run, to);
                    Arrays.fill(row, d, stop, (byte) portOf(base, n, q));
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
                    Arrays.fill(row, d, stop, slotSequence[seq + r]);
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
            int base = slot * maxGroups;
            int seq = slot * SEQUENCE_MAX;
            for (int i = destinations.start(leaf); i < destinations.start(leaf + 1); i++) {
                int d = destinations.destination(i);
                int q = d / pi;
                row[d] = n == 0 ? NO_ROUTE : period > 0 ? slotSequence[seq + q % period] : (byte) portOf(base, n, q);
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
