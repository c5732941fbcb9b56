package org.fabricmanager.routing.dmodc;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
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
    private final int[] rank;
    private NeighbourBlocks blocks;
    private boolean relativesForAnyLeaf;

    RouteFill(FabricIndex index, int[] rank, CostTable costs, int[] divider, RowProfiles profiles,
              LeafDestinations destinations) {
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
        this.rank = rank;
    }

    /**
     * Makes every leaf above one shared set a candidate relative, however few intervals the set has
     * (tests: small fabrics never have sets busy enough for {@link #computeAll} to look for relatives).
     */
    RouteFill relativesForAnyLeaf() {
        relativesForAnyLeaf = true;
        return this;
    }

    /** All rows, switches in parallel, after merging the shared neighbour rows ({@link NeighbourBlocks}). */
    byte[][] computeAll(RoutingPool pool) {
        blocks = NeighbourBlocks.of(index, rank, costs, profiles, destinations, pool);
        int[] twinOf = LeafTwins.of(index, costs, divider);
        int switches = index.switchCount();
        boolean[] candidate = new boolean[switches];
        for (int s = 0; s < switches; s++) {
            candidate[s] = twinOf[s] < 0 && index.leafNumber(s) != FabricIndex.NONE && busy(s);
        }
        RowRelatives relatives = RowRelatives.of(index, costs, divider, profiles, candidate, pool);
        byte[][] rows = new byte[switches][];
        Worker[] workers = new Worker[pool.threads()];
        pool.forRange(rows.length, GRAIN, (w, from, to) -> {
            Worker worker = worker(workers, w);
            for (int s = from; s < to; s++) {
                if (twinOf[s] < 0 && relatives.relativeOf(s) < 0) {
                    rows[s] = worker.row(s);
                    // Its relatives now, while its row is in this core's cache (measured at 5% of
                    // links removed: 3.4 µs a copy here, about 4 µs in a later pass).
                    for (int i = relatives.firstRelative(s); i < relatives.firstRelative(s + 1); i++) {
                        int t = relatives.relative(i);
                        rows[t] = worker.relative(t, rows[s].clone(), relatives.leaves(t));
                    }
                }
            }
        });
        // twins: the representative's row with the two leaves where they differ recomputed
        int words = (costs.leafCount() + 63) >>> 6;
        pool.forRange(rows.length, GRAIN, (w, from, to) -> {
            Worker worker = worker(workers, w);
            for (int s = from; s < to; s++) {
                int r = twinOf[s];
                if (r >= 0) {
                    long[] two = new long[words];
                    int lr = index.leafNumber(r);
                    int ls = index.leafNumber(s);
                    two[lr >>> 6] |= 1L << lr;
                    two[ls >>> 6] |= 1L << ls;
                    rows[s] = worker.patch(s, rows[r].clone(), two, NO_DESTINATIONS);
                }
            }
        });
        return rows;
    }

    private static final int[] NO_DESTINATIONS = new int[0];

    /**
     * Whether routing {@code s} afresh is likely to cost more than copying a relative's row and recomputing
     * the most chunks {@link RowRelatives} allows: its groups are one shared set (a leaf looking up at its
     * pod) with more intervals than those chunks have leaves. An intact pod's set has a few intervals and
     * its leaves' rows are a paint and their own pod; a degraded pod's has about 1,700.
     */
    private boolean busy(int s) {
        if (!blocks.eligible(s) || blocks.firstBlock(s + 1) - blocks.firstBlock(s) != 1) {
            return false;
        }
        int chunks = (costs.leafCount() + ChunkClasses.CHUNK - 1) / ChunkClasses.CHUNK;
        return relativesForAnyLeaf || blocks.rows(blocks.firstBlock(s)).intervals() > RowRelatives.maxChunks(chunks) * ChunkClasses.CHUNK;
    }

    /** Worker {@code w}'s scratch space, made on its first use. */
    private Worker worker(Worker[] workers, int w) {
        if (workers[w] == null) {
            workers[w] = new Worker();
        }
        return workers[w];
    }

    /**
     * The rows of a re-route: {@code null} where {@code changes} reuses the previous row, the
     * previous row copied and patched at its dirty leaves and destinations, or a whole new row.
     */
    byte[][] computeChanged(RoutingPool pool, RouteChanges changes, ForwardingTables previous) {
        int switches = index.switchCount();
        byte[][] rows = new byte[switches][];
        Worker[] workers = new Worker[pool.threads()];
        pool.forRange(rows.length, GRAIN, (w, from, to) -> {
            Worker worker = worker(workers, w);
            for (int s = from; s < to; s++) {
                byte kind = changes.kind(s);
                if (kind == RouteChanges.FULL) {
                    rows[s] = worker.row(s);
                } else if (kind == RouteChanges.PATCH) {
                    rows[s] = worker.patch(s, previous.copyRow(changes.previousRow(s)), changes.dirtyLeaves(s),
                            changes.dirtyDestinations());
                }
            }
        });
        return rows;
    }

    /** One thread's scratch space, reused from switch to switch. */
    private final class Worker {
        private final int leaves = costs.leafCount();
        private final int stride = destinations.stride();
        private final int firstDestination = leaves > 0 ? destinations.first(0) : 0;
        private final int words = Math.max(1, (maxGroups + 63) >>> 6);
        private final Selectors selectors = new Selectors(groupPortStart, groupPorts, maxGroups);
        private final RotationRuns rotation = new RotationRuns();
        private final byte[] positionPorts = new byte[SharedRows.MAX_MEMBERS];
        private final BoundaryEvents events = new BoundaryEvents(leaves);
        private final byte[] masks = new byte[leaves * words * 8];
        private final int[] neighbourRow = new int[8];
        private final long[] mask = new long[words];
        private final long[] runMask = new long[words];
        private final long[] base = new long[words];
        private boolean painted;
        private int[] current = new int[1];
        private int[] modes = new int[0];
        private int[] ownRun = new int[48];
        private final int[] cursor = new int[NeighbourBlocks.MAX_BLOCKS];
        // Intervals of a set overlapping the own row's runs (rotationSweep), listed and flagged.
        private int[] overlap = new int[16];
        private int overlapCount;
        private boolean[] overlapFlag = new boolean[0];
        private final int[] state = new int[NeighbourBlocks.MAX_BLOCKS];
        // blockSweep: each block's groups at its set's base for the own row's mode.
        private final long[] modeGroups = new long[NeighbourBlocks.MAX_BLOCKS];

        // The open run: destinations [runFrom, runTo) sharing the candidates runMask.
        private int runFrom;
        private int runTo;
        // Destination ranges [from, to) an open run was carried over, to be set to no route after it.
        private int[] deferredNoRoute = new int[16];
        private int deferred;
        // The profile segments whose runs at infinite own cost finish() sets to no route (keepReachable), or null.
        private int[] unreachableSegments;

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

        /**
         * Recomputes, in a copy of the previous row of {@code s}, the destinations of the leaves in
         * {@code leaves} (bits, may be null) and the destinations {@code destinations}, each as
         * {@link #row} would write it.
         */
        byte[] patch(int s, byte[] row, long[] leaves, int[] destinations) {
            ownLeaf = index.leafNumber(s);
            g0 = groupStart[s];
            int k = groupStart[s + 1] - g0;
            w = (k + 63) >>> 6;
            pi = divider[s];
            selectors.begin(g0, w, k);
            if (leaves != null) {
                for (int word = 0; word < leaves.length; word++) {
                    long bits = leaves[word];
                    while (bits != 0) {
                        patchLeaf(row, s, k, (word << 6) + Long.numberOfTrailingZeros(bits));
                        bits &= bits - 1;
                    }
                }
            }
            for (int d : destinations) {
                patchDestination(row, s, k, d);
            }
            return row;
        }

        /**
         * Recomputes, in a copy of a relative's row ({@link RowRelatives}), the destinations of the leaves in
         * {@code leaves}. A switch that {@link #rotationSweep} would route (a leaf above one shared set) takes
         * each leaf's candidates from the set and writes them with {@link RotationRuns}, as that sweep does;
         * any other is patched leaf by leaf from the cost table ({@link #patch}), which for a leaf reads its 32
         * neighbours' costs per destination leaf: twice as slow as the first (measured at 5% of links
         * removed: 7.4 against 3.6 µs per relative).
         */
        byte[] relative(int s, byte[] row, long[] leaves) {
            g0 = groupStart[s];
            int k = groupStart[s + 1] - g0;
            w = (k + 63) >>> 6;
            pi = divider[s];
            selectors.begin(g0, w, k);
            if (blocks == null || !blocks.eligible(s) || blocks.firstBlock(s + 1) - blocks.firstBlock(s) != 1
                    || pi != 1 || w != 1 || !selectors.singlePorts()) {
                return patch(s, row, leaves, NO_DESTINATIONS);
            }
            ownLeaf = index.leafNumber(s);
            int b = blocks.firstBlock(s);
            SharedRows r = blocks.rows(b);
            long has = blocks.has(b);
            beginRotation(b, r, has);
            byte[] c = costs.array();
            int at = s * this.leaves;
            int count = r.intervals();
            int i = 0;
            for (int word = 0; word < leaves.length; word++) {
                for (long bits = leaves[word]; bits != 0; bits &= bits - 1) {
                    int leaf = (word << 6) + Long.numberOfTrailingZeros(bits);
                    int v = c[at + leaf];
                    if (leaf == ownLeaf) {
                        for (int e = destinations.start(leaf); e < destinations.start(leaf + 1); e++) {
                            row[destinations.destination(e)] = (byte) destinations.port(e);
                        }
                        continue;
                    }
                    if (v == CostTable.INFINITE) {
                        noRoute(row, leaf);
                        continue;
                    }
                    while (i < count && r.to(i) <= leaf) {
                        i++;
                    }
                    long y = (i < count && r.from(i) <= leaf ? r.lessThan(i, v) : r.base(v)) & has;
                    if (destinations.contiguous(leaf)) {
                        int d0 = destinations.first(leaf);
                        rotation.fill(row, d0, d0 + destinations.count(leaf), y);
                    } else {
                        for (int e = destinations.start(leaf); e < destinations.start(leaf + 1); e++) {
                            int d = destinations.destination(e);
                            rotation.fill(row, d, d + 1, y);
                        }
                    }
                }
            }
            return row;
        }

        private void patchLeaf(byte[] row, int s, int k, int leaf) {
            if (leaf == ownLeaf) {
                for (int i = destinations.start(leaf); i < destinations.start(leaf + 1); i++) {
                    row[destinations.destination(i)] = (byte) destinations.port(i);
                }
                return;
            }
            int own = costs.cost(s, leaf);
            if (k == 0 || own == CostTable.INFINITE) {
                noRoute(row, leaf);
                return;
            }
            leafMask(k, leaf, own);
            if (destinations.contiguous(leaf)) {
                int d0 = destinations.first(leaf);
                selectors.fill(row, d0, d0 + destinations.count(leaf), mask, pi);
            } else {
                fillScattered(row, leaf);
            }
        }

        private void patchDestination(byte[] row, int s, int k, int d) {
            int pos = index.nodeByDestination(d);
            int leafSwitch = pos == FabricIndex.NONE ? FabricIndex.NONE : index.nodeLeaf(pos);
            if (leafSwitch == FabricIndex.NONE) {
                row[d] = NO_ROUTE;
            } else if (leafSwitch == s) {
                row[d] = (byte) index.nodeLeafPort(pos);
            } else {
                int leaf = index.leafNumber(leafSwitch);
                int own = costs.cost(s, leaf);
                if (k == 0 || own == CostTable.INFINITE) {
                    row[d] = NO_ROUTE;
                } else {
                    leafMask(k, leaf, own);
                    row[d] = selectors.port(mask, d, pi);
                }
            }
        }

        /** Formula (1) for one leaf into {@link #mask}: the groups whose neighbour is closer than {@code own}. */
        private void leafMask(int k, int leaf, int own) {
            byte[] c = costs.array();
            Arrays.fill(mask, 0, w, 0L);
            for (int i = 0; i < k; i++) {
                if (c[groupNeighbour[g0 + i] * leaves + leaf] < own) {
                    mask[i >>> 6] |= 1L << i;
                }
            }
        }

        private void routeLeaves(byte[] row, int s, int k) {
            w = (k + 63) >>> 6;
            pi = divider[s];
            selectors.begin(g0, w, k);
            runFrom = -1;
            painted = false;
            deferred = 0;
            unreachableSegments = null;
            if (blocks != null && blocks.eligible(s)) {
                blockSweep(row, s);
                finish(row);
                return;
            }
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
            finish(row);
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

        /**
         * Formulas (1)-(4) from the shared rows of the blocks of {@code s} ({@link NeighbourBlocks})
         * and the runs of its own row off its mode: the leaves split at every boundary of either,
         * and only stretches where a block's rows or the own cost are off their modes are looked at
         * (the rest is the painted base). A block's mask over its set's rows is turned into one over
         * its groups and placed at its first group.
         */
        private void blockSweep(byte[] row, int s) {
            int b0 = blocks.firstBlock(s);
            int nb = blocks.firstBlock(s + 1) - b0;
            int mode = profiles.mode(s);
            int[] segments = profiles.segments(s);
            int runs;
            if (segments != null) {
                runs = keepReachable(segments);
            } else {
                int found = ownRuns(s, mode); // may grow ownRun: read it after
                runs = deferUnreachable(ownRun, found);
            }
            // Base: every row at its mode.
            Arrays.fill(mask, 0, w, 0L);
            for (int b = 0; b < nb; b++) {
                place(b0 + b, blocks.rows(b0 + b).base(mode));
            }
            boolean any = false;
            for (int i = 0; i < w; i++) {
                any |= mask[i] != 0;
            }
            current[0] = mode;
            boolean rotation = nb == 1 && pi == 1 && w == 1 && selectors.singlePorts();
            if (any && mode != CostTable.INFINITE && mode != 0) {
                System.arraycopy(mask, 0, base, 0, w);
                if (!rotation) {
                    selectors.fill(row, 0, row.length, base, pi);
                }
                painted = true;
            }
            if (nb == 1) {
                if (painted && rotation) {
                    rotationSweep(row, b0, mode, runs);
                } else {
                    singleBlockSweep(row, b0, mode, runs);
                }
                return;
            }
            for (int b = 0; b < nb; b++) {
                cursor[b] = 0;
                // A block at its set's base where the own row is at its mode (a level-2 switch's
                // down block towards other pods) gives the same groups at every stretch: turned
                // into groups once rather than per stretch.
                modeGroups[b] = blocks.toGroups(b0 + b, blocks.rows(b0 + b).base(mode));
            }
            // The block whose set has the most intervals (a level-2 switch's up block: its plane's top
            // switches, which at 5% of links removed split about 44 destination pods off the base).
            int busy = 0;
            for (int b = 1; b < nb; b++) {
                if (blocks.rows(b0 + b).intervals() > blocks.rows(b0 + busy).intervals()) {
                    busy = b;
                }
            }
            boolean fast = painted && w == 1;
            int run = 0;
            int p = 0;
            while (p < leaves) {
                while (run < runs && ownRun[3 * run + 1] <= p) {
                    run++;
                }
                int v;
                int next;
                if (run < runs && ownRun[3 * run] <= p) {
                    v = ownRun[3 * run + 2];
                    next = ownRun[3 * run + 1];
                } else {
                    v = mode;
                    next = run < runs ? ownRun[3 * run] : leaves;
                }
                boolean atBase = true;
                for (int b = 0; b < nb; b++) {
                    SharedRows r = blocks.rows(b0 + b);
                    int i = cursor[b];
                    while (i < r.intervals() && r.to(i) <= p) {
                        i++;
                    }
                    cursor[b] = i;
                    if (i < r.intervals() && r.from(i) <= p) {
                        state[b] = i;
                        next = Math.min(next, r.to(i));
                        atBase = false;
                    } else {
                        state[b] = -1;
                        if (i < r.intervals()) {
                            next = Math.min(next, r.from(i));
                        }
                    }
                }
                if (fast && v == mode && othersAtBase(nb, busy)) {
                    p = busyStretches(row, b0, nb, busy, p, ownLimit(run, runs), mode);
                    continue;
                }
                if (v == CostTable.INFINITE) {
                    // No route whatever the candidates: skip merging the sets' rows.
                    current[0] = v;
                    interval(row, p, next);
                } else if (!(atBase && v == mode && painted)) {
                    Arrays.fill(mask, 0, w, 0L);
                    for (int b = 0; b < nb; b++) {
                        SharedRows r = blocks.rows(b0 + b);
                        if (state[b] < 0 && v == mode) {
                            placeGroups(b0 + b, modeGroups[b]);
                        } else {
                            place(b0 + b, state[b] < 0 ? r.base(v) : r.lessThan(state[b], v));
                        }
                    }
                    current[0] = v;
                    interval(row, p, next);
                }
                p = next;
            }
        }

        /** Whether every block but {@code busy} is outside its set's intervals at the sweep's position. */
        private boolean othersAtBase(int nb, int busy) {
            for (int b = 0; b < nb; b++) {
                if (b != busy && state[b] >= 0) {
                    return false;
                }
            }
            return true;
        }

        /** Where the own row next leaves its mode: the start of the next run, or the end of the row. */
        private int ownLimit(int run, int runs) {
            return run < runs ? ownRun[3 * run] : leaves;
        }

        /**
         * {@link #blockSweep} from leaf {@code p} while the own row is at its mode and every block but
         * {@code busy} at its set's base: only the busy block's intervals can differ from the painted base,
         * so they are walked alone (each a lookup and a comparison with the base, as in
         * {@link #singleBlockSweep}) instead of stepping every block's cursor at every stretch. Stops where
         * the own row leaves its mode or another block's next interval starts; returns that leaf. The
         * stretches, their candidates and their order are those of the general loop. One-word masks.
         */
        private int busyStretches(byte[] row, int b0, int nb, int busy, int p, int limit, int mode) {
            long others = 0;
            for (int b = 0; b < nb; b++) {
                if (b == busy) {
                    continue;
                }
                others |= modeGroups[b] << blocks.groupFrom(b0 + b);
                SharedRows r = blocks.rows(b0 + b);
                if (cursor[b] < r.intervals()) {
                    limit = Math.min(limit, r.from(cursor[b]));
                }
            }
            SharedRows r = blocks.rows(b0 + busy);
            int count = r.intervals();
            int shift = blocks.groupFrom(b0 + busy);
            long baseBits = base[0];
            int i = cursor[busy];
            while (p < limit) {
                if (i < count && r.from(i) <= p) {
                    int to = Math.min(limit, r.to(i));
                    long bits = others | blocks.toGroups(b0 + busy, r.lessThan(i, mode)) << shift;
                    if (bits != baseBits) {
                        write(row, p, to, bits);
                    }
                    p = to;
                    if (r.to(i) <= p) {
                        i++;
                    }
                } else {
                    p = i < count ? Math.min(limit, r.from(i)) : limit;
                }
            }
            cursor[busy] = i;
            return p;
        }

        /**
         * {@link #blockSweep} when the switch's groups are one block (masks of one word): the own
         * row's runs and the set's intervals are walked together; at the mode, only the set's
         * intervals are looked at, each a lookup and a comparison with the base, and written only
         * where it differs.
         */
        private void singleBlockSweep(byte[] row, int b, int mode, int runs) {
            SharedRows r = blocks.rows(b);
            int count = r.intervals();
            int shift = blocks.groupFrom(b);
            long baseBits = blocks.toGroups(b, r.base(mode)) << shift;
            int run = 0;
            int i = 0;
            int p = 0;
            while (p < leaves) {
                int runFrom = run < runs ? ownRun[3 * run] : leaves;
                if (runFrom <= p) {
                    // Inside a run of the own row off its mode: split at the set's boundaries.
                    int runTo = ownRun[3 * run + 1];
                    int v = ownRun[3 * run + 2];
                    while (p < runTo) {
                        while (i < count && r.to(i) <= p) {
                            i++;
                        }
                        long rowsMask;
                        int next;
                        if (v == CostTable.INFINITE) {
                            // No route whatever the candidates: skip the set's masks.
                            rowsMask = 0;
                            next = runTo;
                        } else if (i < count && r.from(i) <= p) {
                            rowsMask = r.lessThan(i, v);
                            next = Math.min(runTo, r.to(i));
                        } else {
                            rowsMask = r.base(v);
                            next = i < count ? Math.min(runTo, r.from(i)) : runTo;
                        }
                        emit(row, p, next, v, blocks.toGroups(b, rowsMask) << shift);
                        p = next;
                    }
                    run++;
                    continue;
                }
                // At the mode up to the next run: only the set's intervals can differ from the base.
                while (i < count && r.to(i) <= p) {
                    i++;
                }
                while (p < runFrom) {
                    if (i < count && r.from(i) < runFrom) {
                        int from = Math.max(p, r.from(i));
                        if (!painted && p < from) {
                            emit(row, p, from, mode, baseBits);
                        }
                        int to = Math.min(runFrom, r.to(i));
                        long bits = blocks.toGroups(b, r.lessThan(i, mode)) << shift;
                        if (!painted || bits != baseBits) {
                            emit(row, from, to, mode, bits);
                        }
                        p = to;
                        if (r.to(i) <= runFrom) {
                            i++;
                        }
                    } else {
                        if (!painted) {
                            emit(row, p, runFrom, mode, baseBits);
                        }
                        p = runFrom;
                    }
                }
            }
        }

        /**
         * Starts {@link RotationRuns} on block {@code b} of set {@code r}: each of the set's positions the block has
         * ({@code has}) written with its group's port.
         */
        private void beginRotation(int b, SharedRows r, long has) {
            int first = g0 + blocks.groupFrom(b);
            for (int g = first; g < first + blocks.groupCount(b); g++) {
                positionPorts[r.position(groupNeighbour[g])] = (byte) groupPorts[groupPortStart[g]];
            }
            rotation.begin(has, positionPorts);
        }

        /**
         * {@link #singleBlockSweep} for a painted row with {@code Π_s = 1} and one port per group (a
         * leaf): candidates stay masks over the set's rows ("positions", those the switch lacks
         * cleared) and every stretch whose candidates differ from the base is written at once by
         * {@link RotationRuns}, without turning masks into group masks or gathering runs. The
         * entries are the same: formulas (3)-(4) depend on the candidates only, and the positions
         * of a block are its groups in order.
         *
         * <p>The set's intervals that lie wholly where the own row is at its mode are written group
         * by group ({@link IntervalGroups}): at the set's threshold all intervals of a group have the
         * same candidates, so each sequence is built once for all of them; the order of writing does
         * not matter, as the intervals are disjoint. The intervals overlapping a run of the own row
         * off its mode are written afterwards, in leaf order, split at the run's ends.
         */
        private void rotationSweep(byte[] row, int b, int mode, int runs) {
            SharedRows r = blocks.rows(b);
            IntervalGroups groups = blocks.intervalGroups(b);
            long has = blocks.has(b);
            beginRotation(b, r, has);
            int count = r.intervals();
            long baseY = r.base(mode) & has;
            // The base paint (blockSweep leaves it to here): the same ports as the base group mask,
            // whose groups are the positions in order, but from RotationRuns' octet tables, which
            // are kept from leaf to leaf of a pod where Selectors would build them again per leaf.
            rotation.fill(row, 0, row.length, baseY);
            int overlapping = markOverlapping(r, runs);
            if (groups != null) {
                writeGroups(row, r, groups, mode, has, baseY);
            }
            int f = 0;
            int run = 0;
            int i = 0;
            int p = 0;
            while (p < leaves) {
                int runFrom = run < runs ? ownRun[3 * run] : leaves;
                if (runFrom <= p) {
                    // Inside a run of the own row off its mode: split at the set's boundaries.
                    int runTo = ownRun[3 * run + 1];
                    int v = ownRun[3 * run + 2];
                    if (v == 0) {
                        p = runTo; // the own leaf: its ports are written last
                    } else if (v == CostTable.INFINITE) {
                        for (int leaf = p; leaf < runTo; leaf++) {
                            noRoute(row, leaf);
                        }
                        p = runTo;
                    }
                    i = firstEndingAfter(r, i, p);
                    while (p < runTo) {
                        while (i < count && r.to(i) <= p) {
                            i++;
                        }
                        long y;
                        int next;
                        if (i < count && r.from(i) <= p) {
                            y = r.lessThan(i, v) & has;
                            next = Math.min(runTo, r.to(i));
                        } else {
                            y = r.base(v) & has;
                            next = i < count ? Math.min(runTo, r.from(i)) : runTo;
                        }
                        if (y != baseY) {
                            writeLeaves(row, p, next, y);
                        }
                        p = next;
                    }
                    run++;
                    continue;
                }
                // At the mode up to the next run: the intervals wholly here were written by groups
                // (or are written now when there are none); those overlapping a run, only in part.
                if (groups == null) {
                    i = firstEndingAfter(r, i, p);
                    while (i < count && r.from(i) < runFrom) {
                        long y = r.lessThan(i, mode) & has;
                        if (y != baseY) {
                            writeLeaves(row, Math.max(p, r.from(i)), Math.min(runFrom, r.to(i)), y);
                        }
                        if (r.to(i) > runFrom) {
                            break;
                        }
                        i++;
                    }
                } else {
                    while (f < overlapping && r.to(overlap[f]) <= p) {
                        f++;
                    }
                    while (f < overlapping && r.from(overlap[f]) < runFrom) {
                        int k = overlap[f];
                        long y = r.lessThan(k, mode) & has;
                        if (y != baseY) {
                            writeLeaves(row, Math.max(p, r.from(k)), Math.min(runFrom, r.to(k)), y);
                        }
                        if (r.to(k) > runFrom) {
                            break;
                        }
                        f++;
                    }
                }
                p = runFrom;
            }
        }

        /**
         * The set's intervals overlapping a run of the own row off its mode, ascending, into
         * {@link #overlap} (each once), flagged in {@link #overlapFlag}; returns their number.
         */
        private int markOverlapping(SharedRows r, int runs) {
            if (overlapFlag.length < r.intervals()) {
                overlapFlag = new boolean[Math.max(r.intervals(), 2 * overlapFlag.length)];
            }
            for (int f = 0; f < overlapCount; f++) {
                overlapFlag[overlap[f]] = false;
            }
            int n = 0;
            int i = 0;
            for (int run = 0; run < runs; run++) {
                int from = ownRun[3 * run];
                int to = ownRun[3 * run + 1];
                for (i = firstEndingAfter(r, i, from); i < r.intervals() && r.from(i) < to; i++) {
                    if (!overlapFlag[i]) {
                        overlapFlag[i] = true;
                        if (n == overlap.length) {
                            overlap = Arrays.copyOf(overlap, 2 * n);
                        }
                        overlap[n++] = i;
                    }
                }
                // the last interval looked at may reach into the next run too
                i = Math.max(0, i - 1);
            }
            overlapCount = n;
            return n;
        }

        /**
         * The intervals not overlapping a run of the own row, each group's sequence built once when
         * the own mode is the set's threshold (the masks the groups are made of), interval by
         * interval otherwise.
         */
        private void writeGroups(byte[] row, SharedRows r, IntervalGroups groups, int mode, long has, long baseY) {
            boolean atThreshold = mode == r.threshold();
            for (int g = 0; g < groups.count(); g++) {
                long y = groups.mask(g) & has;
                if (atThreshold) {
                    if (y == baseY) {
                        continue;
                    }
                    rotation.prepare(y);
                }
                for (int k = groups.start(g); k < groups.start(g + 1); k++) {
                    int i = groups.interval(k);
                    if (overlapFlag[i]) {
                        continue;
                    }
                    if (!atThreshold) {
                        y = r.lessThan(i, mode) & has;
                        if (y == baseY) {
                            continue;
                        }
                    }
                    int d0 = groups.destinationFrom(i);
                    if (d0 < 0) {
                        writeLeaves(row, r.from(i), r.to(i), y);
                    } else if (atThreshold) {
                        rotation.write(row, d0, groups.destinationTo(i));
                    } else {
                        rotation.fill(row, d0, groups.destinationTo(i), y);
                    }
                }
            }
        }

        /** The first interval from {@code i} on that ends after leaf {@code p} (intervals are sorted and disjoint). */
        private static int firstEndingAfter(SharedRows r, int i, int p) {
            int lo = i;
            int hi = r.intervals();
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (r.to(mid) <= p) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        /** The destinations of leaves {@code [from, to)} with the candidate positions {@code y}. */
        private void writeLeaves(byte[] row, int from, int to, long y) {
            int leaf = from;
            while (leaf < to) {
                if (!destinations.contiguous(leaf)) {
                    for (int e = destinations.start(leaf); e < destinations.start(leaf + 1); e++) {
                        int d = destinations.destination(e);
                        rotation.fill(row, d, d + 1, y);
                    }
                    leaf++;
                    continue;
                }
                int last = Math.min(destinations.chainEnd(leaf), to - 1);
                rotation.fill(row, destinations.first(leaf), destinations.first(last) + destinations.count(last), y);
                leaf = last + 1;
            }
        }

        /**
         * The destinations of leaves {@code [from, to)} at the own row's mode with the one-word candidates
         * {@code bits}, written at once rather than gathered into runs ({@link #emit}): a level-2 switch's
         * stretch is a destination pod whose top switches lost a link, each with its own candidates, so
         * there is no run to extend. The entries are the same: they depend on the candidates and on
         * {@code d} only.
         */
        private void write(byte[] row, int from, int to, long bits) {
            mask[0] = bits;
            int leaf = from;
            while (leaf < to) {
                if (!destinations.contiguous(leaf)) {
                    fillScattered(row, leaf);
                    leaf++;
                    continue;
                }
                int last = Math.min(destinations.chainEnd(leaf), to - 1);
                selectors.fill(row, destinations.first(leaf), destinations.first(last) + destinations.count(last), mask, pi);
                leaf = last + 1;
            }
        }

        /** Leaves {@code [from, to)} at own cost {@code v} with the one-word candidates {@code bits}. */
        private void emit(byte[] row, int from, int to, int v, long bits) {
            mask[0] = bits;
            current[0] = v;
            interval(row, from, to);
        }

        /** ORs block {@code b}'s mask (over its set's rows) into {@link #mask} at its groups. */
        private void place(int b, long rowsMask) {
            placeGroups(b, blocks.toGroups(b, rowsMask));
        }

        /** ORs block {@code b}'s mask over its groups into {@link #mask} at its first group. */
        private void placeGroups(int b, long bits) {
            if (bits == 0) {
                return;
            }
            int at = blocks.groupFrom(b);
            int word = at >>> 6;
            int shift = at & 63;
            mask[word] |= bits << shift;
            if (shift != 0 && word + 1 < w) {
                mask[word + 1] |= bits >>> (64 - shift);
            }
        }

        /**
         * Copies the first {@code runs} runs (triples) of {@code source} (a row's profile segments, or
         * {@link #ownRun} itself) into {@link #ownRun} but those at infinite own cost, keeping their order,
         * and notes the destinations of those for no route after the row's last run: the sweeps then treat
         * those leaves as at the mode, whatever candidates they write there is overwritten, and a
         * set's interval that {@link SharedRows} merged over leaves no asker reaches is not split
         * there again. Returns the number of runs kept.
         */
        private int deferUnreachable(int[] source, int runs) {
            if (ownRun.length < 3 * runs) {
                ownRun = new int[3 * runs];
            }
            int kept = 0;
            for (int run = 0; run < runs; run++) {
                int from = source[3 * run];
                int to = source[3 * run + 1];
                int v = source[3 * run + 2];
                if (v != CostTable.INFINITE) {
                    ownRun[3 * kept] = from;
                    ownRun[3 * kept + 1] = to;
                    ownRun[3 * kept + 2] = v;
                    kept++;
                    continue;
                }
                int leaf = from;
                while (leaf < to) {
                    if (!destinations.contiguous(leaf)) {
                        for (int e = destinations.start(leaf); e < destinations.start(leaf + 1); e++) {
                            deferNoRoute(destinations.destination(e), destinations.destination(e) + 1);
                        }
                        leaf++;
                        continue;
                    }
                    int last = Math.min(destinations.chainEnd(leaf), to - 1);
                    deferNoRoute(destinations.first(leaf), destinations.first(last) + destinations.count(last));
                    leaf = last + 1;
                }
            }
            return kept;
        }

        /**
         * {@link #deferUnreachable} for a row's profile {@code segments}: the runs at infinite own cost are
         * not noted one by one but set to no route by {@link #finish} straight from the segments, which stay
         * as they are (level-2 and top rows at 5% of links removed have about a hundred such runs each, one
         * unreachable leaf apiece). Returns the number of runs kept in {@link #ownRun}.
         */
        private int keepReachable(int[] segments) {
            if (ownRun.length < segments.length) {
                ownRun = new int[segments.length];
            }
            int kept = 0;
            for (int g = 0; g < segments.length; g += 3) {
                if (segments[g + 2] != CostTable.INFINITE) {
                    ownRun[3 * kept] = segments[g];
                    ownRun[3 * kept + 1] = segments[g + 1];
                    ownRun[3 * kept + 2] = segments[g + 2];
                    kept++;
                }
            }
            unreachableSegments = kept == segments.length / 3 ? null : segments;
            return kept;
        }

        /**
         * The runs of the row of {@code s} off {@code mode} into {@link #ownRun} as triples
         * (from, to, cost), from its costs (a row without a profile); returns their number.
         */
        private int ownRuns(int s, int mode) {
            byte[] c = costs.array();
            int at = s * leaves;
            int n = 0;
            int l = 0;
            while (l < leaves) {
                int v = c[at + l];
                if (v == mode) {
                    l++;
                    continue;
                }
                int start = l;
                while (l < leaves && c[at + l] == v) {
                    l++;
                }
                if (3 * n + 3 > ownRun.length) {
                    ownRun = Arrays.copyOf(ownRun, ownRun.length * 2);
                }
                ownRun[3 * n] = start;
                ownRun[3 * n + 1] = l;
                ownRun[3 * n + 2] = v;
                n++;
            }
            return n;
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
                if (cost != CostTable.INFINITE) {
                    add(row, d0, d1);
                } else if (runFrom >= 0 && d0 == runTo) {
                    // Unreachable leaves inside a stretch of equal candidates (a destination leaf
                    // that lost one uplink, in a pod's run): the open run goes on over them and
                    // they are set to no route after it is written, so that the run is written
                    // once; its ports elsewhere depend on the candidates and d only.
                    runTo = d1;
                    deferNoRoute(d0, d1);
                } else {
                    Arrays.fill(row, d0, d1, NO_ROUTE);
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

        private void deferNoRoute(int from, int to) {
            if (deferred + 2 > deferredNoRoute.length) {
                deferredNoRoute = Arrays.copyOf(deferredNoRoute, 2 * deferredNoRoute.length);
            }
            deferredNoRoute[deferred++] = from;
            deferredNoRoute[deferred++] = to;
        }

        /**
         * The last run written; then no route where runs were carried over unreachable leaves and at the
         * leaves {@link #keepReachable} left out.
         */
        private void finish(byte[] row) {
            flush(row);
            // Mostly one destination leaf each (32 entries): eight-byte stores beat Arrays.fill's loop.
            for (int i = 0; i < deferred; i += 2) {
                RowPatterns.fill(row, deferredNoRoute[i], deferredNoRoute[i + 1], NO_ROUTE);
            }
            deferred = 0;
            if (unreachableSegments != null) {
                int[] segments = unreachableSegments;
                unreachableSegments = null;
                for (int g = 0; g < segments.length; g += 3) {
                    if (segments[g + 2] == CostTable.INFINITE) {
                        noRoute(row, segments[g], segments[g + 1]);
                    }
                }
            }
        }

        /** A leaf whose destinations are not one range, entry by entry, with the candidates in {@link #mask}. */
        private void fillScattered(byte[] row, int leaf) {
            for (int i = destinations.start(leaf); i < destinations.start(leaf + 1); i++) {
                int d = destinations.destination(i);
                row[d] = selectors.port(mask, d, pi);
            }
        }

        /** No route to the destinations of leaves {@code [from, to)}. */
        private void noRoute(byte[] row, int from, int to) {
            if (stride > 0) {
                RowPatterns.fill(row, firstDestination + stride * from, firstDestination + stride * to, NO_ROUTE);
                return;
            }
            for (int leaf = from; leaf < to; leaf++) {
                noRoute(row, leaf);
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
