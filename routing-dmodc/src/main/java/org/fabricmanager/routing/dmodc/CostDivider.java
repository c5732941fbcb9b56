package org.fabricmanager.routing.dmodc;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * Procedure 1 of the Dmodc paper: the cost {@code c[s][l]} of every switch to every leaf (shortest
 * up*&#47;down* path) and the divider {@code Π_s} of every switch.
 *
 * <p>The paper pushes values from each switch to its neighbours, visiting switches by ascending
 * rank (costs and dividers up) and then by descending rank (costs down). This implementation
 * pulls instead, which gives the same values and lets the switches of one rank be computed in
 * parallel without sharing a written row: going up, a switch of rank {@code r} takes
 * {@code min(c[down] + 1)} over its down neighbours (all of rank {@code r - 1}, already final) and
 * {@code Π = max(Π_down × #{up of down})}; going down, it lowers its costs to
 * {@code c[up] + 1} over its up neighbours (rank {@code r + 1}, final). The push order of the paper
 * never lets a rank's result depend on the order inside the rank, so the pull form is exact. One
 * barrier per rank going up, then one per rank going down.
 *
 * <p>Shortcuts skip work whose result is known, without changing any value: going up, a row with
 * few finite costs (a leaf's, or a low switch's) is pulled entry by entry from its list of finite
 * leaves; each final row is profiled ({@link RowProfiles}) by the worker that finishes it, and going
 * down the up neighbours are combined from their profiles (by a sweep over their segment
 * boundaries, or through the leaves their segments cover), identical neighbour rows once. Whole
 * rows are handled eight leaves at a time ({@link ByteLanes}).
 */
final class CostDivider {
    private static final int GRAIN = 16;

    private CostDivider() {
    }

    /** The result: costs and dividers, indexed by switch id. */
    record Result(CostTable costs, int[] dividers, RowProfiles profiles) {
    }

    static Result compute(FabricIndex index, Ranks ranks, Neighbours neighbours, RoutingPool pool) {
        return new CostDivider.Run(index, ranks, neighbours).compute(pool);
    }

    /** One computation's state. */
    private static final class Run {
        private final FabricIndex index;
        private final Ranks ranks;
        private final Neighbours neighbours;
        private final int leaves;
        private final int wide;
        private final CostTable table;
        private final byte[] c;
        private final int[] divider;
        /** Going up: the leaves with a finite cost, for rows that have few; null for dense rows. */
        private final int[][] finite;
        /** Final rows, profiled as soon as they are final. */
        private final RowProfiles profiles;
        private final int sparseLimit;

        Run(FabricIndex index, Ranks ranks, Neighbours neighbours) {
            this.index = index;
            this.ranks = ranks;
            this.neighbours = neighbours;
            this.leaves = index.leafCount();
            this.wide = leaves & ~7;
            int switches = index.switchCount();
            this.table = new CostTable(switches, leaves);
            this.c = table.array();
            this.divider = new int[switches];
            this.finite = new int[switches][];
            this.profiles = new RowProfiles(switches);
            this.sparseLimit = leaves / 16;
        }

        Result compute(RoutingPool pool) {
            int switches = index.switchCount();
            int[] rank = ranks.array();
            int top = ranks.top();
            Arrays.fill(divider, 1);
            DownScratch[] scratches = new DownScratch[pool.threads()];
            int[][] upScratch = new int[pool.threads()][];
            // Rows of leaves and of unreached switches are set here; the up pass writes the others.
            // A row is profiled as soon as it is final: here for unreached switches (and leaves
            // when they are the top rank), after the up pass for the top rank, else going down.
            pool.forRange(switches, 64, (worker, from, to) -> {
                DownScratch scratch = scratch(scratches, worker);
                for (int s = from; s < to; s++) {
                    if (rank[s] == Ranking.UNREACHED) {
                        Arrays.fill(c, s * leaves, (s + 1) * leaves, (byte) CostTable.INFINITE);
                        profiles.setUnreachable(s);
                    } else if (rank[s] == 0) {
                        Arrays.fill(c, s * leaves, (s + 1) * leaves, (byte) CostTable.INFINITE);
                        int own = index.leafNumber(s);
                        c[s * leaves + own] = 0;
                        finite[s] = new int[] {own};
                        if (top == 0) {
                            profiles.profile(table, s, scratch.histogram, scratch.segments);
                        }
                    }
                }
            });
            for (int r = 1; r <= top; r++) {
                int level = r;
                pool.forRange(ranks.levelSize(r), GRAIN, (worker, from, to) -> {
                    if (upScratch[worker] == null) {
                        upScratch[worker] = new int[64];
                    }
                    DownScratch scratch = scratch(scratches, worker);
                    for (int i = from; i < to; i++) {
                        int s = ranks.levelSwitch(level, i);
                        upScratch[worker] = pullUp(s, upScratch[worker]);
                        if (level == top) {
                            profiles.profile(table, s, scratch.histogram, scratch.segments);
                        }
                    }
                });
            }
            for (int r = top - 1; r >= 0; r--) {
                int level = r;
                pool.forRange(ranks.levelSize(r), GRAIN, (worker, from, to) -> {
                    DownScratch scratch = scratch(scratches, worker);
                    for (int i = from; i < to; i++) {
                        int s = ranks.levelSwitch(level, i);
                        pullDown(s, scratch);
                        profiles.profile(table, s, scratch.histogram, scratch.segments);
                    }
                });
            }
            return new Result(table, divider, profiles);
        }

        private DownScratch scratch(DownScratch[] scratches, int worker) {
            if (scratches[worker] == null) {
                scratches[worker] = new DownScratch(leaves);
            }
            return scratches[worker];
        }

        /**
         * Costs and divider of {@code s} from its down neighbours (first pass of Procedure 1).
         * Returns {@code scratch} (a list buffer), or a larger replacement.
         */
        private int[] pullUp(int s, int[] scratch) {
            int row = s * leaves;
            Arrays.fill(c, row, row + leaves, (byte) CostTable.INFINITE);
            long pi = 1;
            boolean sparse = true;
            int listed = 0;
            for (int i = neighbours.downStart(s); i < neighbours.downEnd(s); i++) {
                int t = neighbours.down(i);
                long candidate = (long) divider[t] * neighbours.upCount(t);
                if (candidate > pi) {
                    pi = candidate;
                }
                if (finite[t] == null) {
                    sparse = false;
                } else {
                    listed += finite[t].length;
                }
            }
            // Dividers beyond every destination index all give floor(d / Π) = 0: saturating keeps that exact.
            divider[s] = (int) Math.min(pi, Integer.MAX_VALUE);
            if (sparse) {
                // Only the children's finite leaves can become finite here: pull them, plus one, and list them.
                int[] list = scratch.length >= listed ? scratch : new int[listed];
                int n = 0;
                for (int i = neighbours.downStart(s); i < neighbours.downEnd(s); i++) {
                    int other = neighbours.down(i) * leaves;
                    for (int leaf : finite[neighbours.down(i)]) {
                        int via = c[other + leaf] + 1;
                        int mine = c[row + leaf];
                        if (via < mine) {
                            if (mine == CostTable.INFINITE) {
                                list[n++] = leaf;
                            }
                            c[row + leaf] = (byte) via;
                        }
                    }
                }
                finite[s] = n <= sparseLimit ? Arrays.copyOf(list, n) : null;
                return list;
            }
            for (int i = neighbours.downStart(s); i < neighbours.downEnd(s); i++) {
                int t = neighbours.down(i);
                int other = t * leaves;
                int[] list = finite[t];
                if (list != null) {
                    for (int leaf : list) {
                        if (c[other + leaf] < c[row + leaf]) {
                            c[row + leaf] = c[other + leaf];
                        }
                    }
                    continue;
                }
                for (int l = 0; l < wide; l += 8) {
                    ByteLanes.set(c, row + l, ByteLanes.min(ByteLanes.get(c, row + l), ByteLanes.get(c, other + l)));
                }
                for (int l = wide; l < leaves; l++) {
                    if (c[other + l] < c[row + l]) {
                        c[row + l] = c[other + l];
                    }
                }
            }
            for (int l = 0; l < wide; l += 8) {
                ByteLanes.set(c, row + l, ByteLanes.incrementSaturating(ByteLanes.get(c, row + l)));
            }
            for (int l = wide; l < leaves; l++) {
                if (c[row + l] != CostTable.INFINITE) {
                    c[row + l]++;
                }
            }
            finite[s] = null;
            return scratch;
        }

        /**
         * Lowers the costs of {@code s} through its up neighbours (second pass of Procedure 1):
         * {@code c[s][l] = min(c[s][l], c[u][l] + 1)} over the up neighbours {@code u}. Neighbours
         * without a profile are pulled leaf by leaf; the profiled ones together, from their modes
         * and segments: by a sweep over segment boundaries when they have few segments, else
         * through the leaves their segments cover.
         */
        private void pullDown(int s, DownScratch x) {
            int row = s * leaves;
            int segmentCount = 0;
            boolean any = false;
            for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                int u = neighbours.up(i);
                int[] segments = profiles.segments(u);
                if (segments == null) {
                    pullWhole(row, u * leaves);
                } else {
                    any = true;
                    segmentCount += segments.length / 3;
                }
            }
            if (!any) {
                return;
            }
            if (segmentCount <= Math.max(32, leaves / 32)) {
                pullBySweep(s, row, x);
            } else {
                pullByLeaf(s, row, x);
            }
        }

        /**
         * Between two segment boundaries of the profiled up neighbours every one of their costs is
         * constant, so their minimum is too and lowers a whole stretch of the row at once.
         */
        private void pullBySweep(int s, int row, DownScratch x) {
            x.reset();
            int previous = -1;
            for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                int u = neighbours.up(i);
                int[] segments = profiles.segments(u);
                if (segments == null || previous >= 0 && profiles.same(u, previous)) {
                    continue; // an identical row adds nothing to a minimum
                }
                previous = u;
                int mode = profiles.mode(u);
                x.count[mode]++;
                for (int g = 0; g < segments.length; g += 3) {
                    x.event(segments[g], mode, segments[g + 2]);
                    x.event(segments[g + 1], segments[g + 2], mode);
                }
            }
            x.refreshPresent();
            // [from, p) is the stretch over which the lowest neighbour cost has stayed `value`.
            int from = 0;
            int value = x.lowest();
            long[] positions = x.events.positions();
            for (int word = 0; word < positions.length; word++) {
                long bits = positions[word];
                while (bits != 0) {
                    int p = (word << 6) + Long.numberOfTrailingZeros(bits);
                    bits &= bits - 1;
                    x.apply(p);
                    int now = x.lowest();
                    if (now != value) {
                        lower(row, from, p, value);
                        from = p;
                        value = now;
                    }
                }
            }
            lower(row, from, leaves, value);
        }

        /**
         * With {@code M} the smallest mode among the profiled up neighbours, every leaf where some
         * neighbour of mode {@code M} is at its mode gets {@code min(c, M + 1)} in one pass over the
         * row, then the segments below {@code M} lower it further; the leaves where every
         * neighbour of mode {@code M} is in a segment are computed neighbour by neighbour.
         */
        private void pullByLeaf(int s, int row, DownScratch x) {
            int lowest = Integer.MAX_VALUE;
            int atLowest = 0;
            int previous = -1;
            for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                int u = neighbours.up(i);
                if (profiles.segments(u) == null || previous >= 0 && profiles.same(u, previous)) {
                    continue;
                }
                previous = u;
                if (profiles.mode(u) < lowest) {
                    lowest = profiles.mode(u);
                    atLowest = 1;
                } else if (profiles.mode(u) == lowest) {
                    atLowest++;
                }
            }
            if (lowest == CostTable.INFINITE) {
                pullSegments(s, row, CostTable.INFINITE);
                return;
            }
            if (++x.leafEpoch == 0) {
                Arrays.fill(x.leafStamp, 0);
                x.leafEpoch = 1;
            }
            int excepted = 0;
            previous = -1;
            for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                int u = neighbours.up(i);
                int[] segments = profiles.segments(u);
                if (segments == null || previous >= 0 && profiles.same(u, previous)) {
                    continue; // counted once, as in the loop above
                }
                previous = u;
                if (profiles.mode(u) != lowest) {
                    continue;
                }
                for (int g = 0; g < segments.length; g += 3) {
                    for (int l = segments[g]; l < segments[g + 1]; l++) {
                        if (x.leafStamp[l] != x.leafEpoch) {
                            x.leafStamp[l] = x.leafEpoch;
                            x.leafCount[l] = 0;
                        }
                        if (++x.leafCount[l] == atLowest) {
                            if (excepted == x.excepted.length) {
                                x.excepted = Arrays.copyOf(x.excepted, excepted * 2);
                                x.saved = Arrays.copyOf(x.saved, excepted * 2);
                            }
                            x.excepted[excepted++] = l;
                        }
                    }
                }
            }
            for (int k = 0; k < excepted; k++) {
                x.saved[k] = c[row + x.excepted[k]];
            }
            lower(row, 0, leaves, lowest);
            for (int k = 0; k < excepted; k++) {
                int l = x.excepted[k];
                int best = x.saved[k];
                for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                    int v = c[neighbours.up(i) * leaves + l];
                    if (v != CostTable.INFINITE && v + 1 < best) {
                        best = v + 1;
                    }
                }
                c[row + l] = (byte) best;
            }
            pullSegments(s, row, lowest);
        }

        /** {@code c[s][l] = min(c[s][l], c[u][l] + 1)} over the profiled up neighbours' segments below {@code below}. */
        private void pullSegments(int s, int row, int below) {
            for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                int[] segments = profiles.segments(neighbours.up(i));
                if (segments == null) {
                    continue;
                }
                for (int g = 0; g < segments.length; g += 3) {
                    int v = segments[g + 2];
                    if (v >= below) {
                        continue;
                    }
                    for (int l = segments[g]; l < segments[g + 1]; l++) {
                        if (v + 1 < c[row + l]) {
                            c[row + l] = (byte) (v + 1);
                        }
                    }
                }
            }
        }

        /** {@code c[s][l] = min(c[s][l], value + 1)} for leaves {@code [from, to)} of the row at {@code row}. */
        private void lower(int row, int from, int to, int value) {
            if (value >= CostTable.INFINITE) {
                return;
            }
            byte via = (byte) (value + 1);
            int l = from;
            for (; l < to && (l & 7) != 0; l++) {
                if (via < c[row + l]) {
                    c[row + l] = via;
                }
            }
            long via8 = ByteLanes.ONES * via;
            for (; l + 8 <= to; l += 8) {
                ByteLanes.set(c, row + l, ByteLanes.min(ByteLanes.get(c, row + l), via8));
            }
            for (; l < to; l++) {
                if (via < c[row + l]) {
                    c[row + l] = via;
                }
            }
        }

        /** {@code c[s][l] = min(c[s][l], c[u][l] + 1)} for every leaf. */
        private void pullWhole(int row, int other) {
            for (int l = 0; l < wide; l += 8) {
                long viaUp = ByteLanes.incrementSaturating(ByteLanes.get(c, other + l));
                ByteLanes.set(c, row + l, ByteLanes.min(ByteLanes.get(c, row + l), viaUp));
            }
            for (int l = wide; l < leaves; l++) {
                int viaUp = c[other + l] == CostTable.INFINITE ? CostTable.INFINITE : c[other + l] + 1;
                if (viaUp < c[row + l]) {
                    c[row + l] = (byte) viaUp;
                }
            }
        }
    }

    /**
     * One worker's scratch for {@link Run#pullDown}: the cost changes of the up neighbours' rows,
     * by leaf position (events carry the old and the new cost), how many neighbours currently have
     * each cost, and the per-leaf counters of the fallback.
     */
    private static final class DownScratch {
        final int[] histogram = new int[CostTable.INFINITE + 1];
        final int[] segments;
        final int[] count = new int[CostTable.INFINITE + 1];
        final long[] present = new long[2];
        final BoundaryEvents events;
        final int[] leafStamp;
        final int[] leafCount;
        int[] excepted = new int[16];
        int[] saved = new int[16];
        int leafEpoch;

        DownScratch(int leaves) {
            events = new BoundaryEvents(leaves);
            segments = new int[3 * (leaves / 8) + 3];
            leafStamp = new int[leaves];
            leafCount = new int[leaves];
        }

        void reset() {
            Arrays.fill(count, 0);
            events.clear();
        }

        /** At leaf position {@code p}, one neighbour's cost goes from {@code old} to {@code now}. */
        void event(int p, int old, int now) {
            events.add(p, old, now, true);
        }

        /** Applies the changes at position {@code p}. */
        void apply(int p) {
            for (int e = events.firstStart(p); e >= 0; e = events.next(e)) {
                count[events.a(e)]--;
                count[events.b(e)]++;
            }
            for (int e = events.firstStart(p); e >= 0; e = events.next(e)) {
                mark(events.a(e));
                mark(events.b(e));
            }
        }

        void refreshPresent() {
            present[0] = 0;
            present[1] = 0;
            for (int v = 0; v < count.length; v++) {
                if (count[v] > 0) {
                    present[v >>> 6] |= 1L << v;
                }
            }
        }

        private void mark(int v) {
            if (count[v] > 0) {
                present[v >>> 6] |= 1L << v;
            } else {
                present[v >>> 6] &= ~(1L << v);
            }
        }

        /** The lowest cost any profiled neighbour currently has. */
        int lowest() {
            return present[0] != 0 ? Long.numberOfTrailingZeros(present[0])
                    : 64 + Long.numberOfTrailingZeros(present[1]);
        }
    }
}
