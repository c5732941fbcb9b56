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
 * <p>Consecutive leaves with the same candidates and adjacent destinations form one run, whose
 * ports {@link Selectors} writes by formulas (3)-(4). Each row is first painted with the ports of
 * its most common candidates, then patched where others hold. The result is entry for entry what
 * formulas (1)-(4) give.
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
        private final int leaves = costs.leafCount();
        private final int words = Math.max(1, (maxGroups + 63) >>> 6);
        private final Selectors selectors = new Selectors(groupPortStart, groupPorts, maxGroups);
        private final BoundaryEvents events = new BoundaryEvents(leaves);
        private final byte[] masks = new byte[leaves * words * 8];
        private final int[] neighbourRow = new int[8];
        private final long[] mask = new long[words];
        private final long[] runMask = new long[words];
        private final long[] base = new long[words];
        private boolean painted;
        private int[] current = new int[0];
        private int[] modes = new int[0];

        // The open run: destinations [runFrom, runTo) sharing the candidates runMask.
        private int runFrom;
        private int runTo;

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
            selectors.begin(g0, w);
            runFrom = -1;
            painted = false;
            boolean profiled = profiles.segments(s) != null;
            for (int i = 0; i < k && profiled; i++) {
                profiled = profiles.segments(groupNeighbour[g0 + i]) != null;
            }
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
         * row of {@code s} changes). Events carry (row, cost): row 0 is {@code s}, row
         * {@code i + 1} the neighbour of group {@code g0 + i}.
         */
        private void sweep(byte[] row, int s, int k) {
            events.clear();
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
            recomputeMask(k);
            // Paint the whole row with the base candidates (every row at its mode), which hold
            // for most leaves; the sweep then only writes where other candidates hold.
            boolean any = false;
            for (int i = 0; i < w; i++) {
                any |= mask[i] != 0;
            }
            if (any && modes[0] != CostTable.INFINITE && modes[0] != 0) {
                System.arraycopy(mask, 0, base, 0, w);
                selectors.fill(row, 0, row.length, base, pi);
                painted = true;
            }
            long[] positions = events.positions();
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
                    for (int e = events.firstEnd(p); e >= 0; e = events.next(e)) {
                        own |= apply(events.a(e), events.b(e));
                    }
                    for (int e = events.firstStart(p); e >= 0; e = events.next(e)) {
                        own |= apply(events.a(e), events.b(e));
                    }
                    if (own) {
                        recomputeMask(k);
                    }
                }
            }
            if (previous < leaves) {
                interval(row, previous, leaves);
            }
        }

        private void recomputeMask(int k) {
            Arrays.fill(mask, 0, w, 0L);
            for (int i = 0; i < k; i++) {
                if (current[i + 1] < current[0]) {
                    mask[i >>> 6] |= 1L << i;
                }
            }
        }

        /** Row {@code r} takes cost {@code value}; true when it is the row of s itself. */
        private boolean apply(int r, int value) {
            current[r] = value;
            if (r == 0) {
                return true;
            }
            int i = r - 1;
            if (value < current[0]) {
                mask[i >>> 6] |= 1L << i;
            } else {
                mask[i >>> 6] &= ~(1L << i);
            }
            return false;
        }

        private void addEvents(int r, int[] segments) {
            for (int g = 0; g < segments.length; g += 3) {
                events.add(segments[g], r, segments[g + 2], true);
                events.add(segments[g + 1], r, modes[r], false);
            }
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
                        fillScattered(row, leaf);
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
                    fillScattered(row, leaf);
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

        private void flush(byte[] row) {
            if (runFrom >= 0) {
                selectors.fill(row, runFrom, runTo, runMask, pi);
                runFrom = -1;
            }
        }

        /** A leaf whose destinations are not one range, entry by entry, with the candidates in {@link #mask}. */
        private void fillScattered(byte[] row, int leaf) {
            for (int i = destinations.start(leaf); i < destinations.start(leaf + 1); i++) {
                int d = destinations.destination(i);
                row[d] = selectors.port(mask, d, pi);
            }
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
    }
}
