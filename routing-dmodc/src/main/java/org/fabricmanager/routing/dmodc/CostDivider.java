package org.fabricmanager.routing.dmodc;

import java.util.Arrays;
import org.fabricmanager.routing.RoutingPool;
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

    /**
     * The result: costs and dividers, indexed by switch id. After an {@link #update}, also the
     * leaves at which each row differs from the previous snapshot's row of the same switch
     * ({@code null} rows: unchanged; every leaf for a new switch); {@code null} after a
     * {@link #compute}.
     */
    record Result(CostTable costs, int[] dividers, RowProfiles profiles, long[][] changed) {
    }

    static Result compute(FabricIndex index, Ranks ranks, Neighbours neighbours, RoutingPool pool) {
        return new CostDivider.Run(index, ranks, neighbours).compute(pool);
    }

    /**
     * Procedure 1 for {@code index} from the routing of an earlier snapshot with exactly the same
     * leaves (GUIDs, in the same order): rows whose inputs did not change are copied (with their
     * profiles), the others recomputed, rank by rank. Gives exactly what {@link #compute} gives.
     *
     * <p>Going up, a row of rank {@code r} holds {@code r} at the leaves below it (reached by a
     * strictly descending path) and infinity elsewhere, so the up-pass row of any switch can be read
     * off its final row: the leaves where the final cost equals its rank. A switch is recomputed
     * going up when it is new, changed rank, changed down neighbours or one of them changed the
     * leaves below it; going down when its leaves below, its up neighbours or one of their final
     * rows changed. Dividers are recomputed for all switches (they cost no per-leaf work).
     */
    static Result update(FabricIndex index, Ranks ranks, Neighbours neighbours, RoutingPool pool, DmodcRouting previous) {
        return new CostDivider.Run(index, ranks, neighbours).update(pool, previous);
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
            UpSets sets = UpSets.of(switches, neighbours);
            byte[][] lowest = new byte[sets.count()][];
            byte[][] count = new byte[sets.count()][];
            int[] rankOfSet = new int[sets.count()];
            Arrays.fill(rankOfSet, -1);
            for (int s = 0; s < switches; s++) {
                if (sets.setOf(s) >= 0) {
                    rankOfSet[sets.setOf(s)] = rank[s];
                }
            }
            for (int r = top - 1; r >= 0; r--) {
                int level = r;
                // The merged rows of the sets below rank r + 1 (final now), then the switches of rank r.
                pool.forRange(sets.count(), 1, (worker, from, to) -> {
                    for (int id = from; id < to; id++) {
                        if (rankOfSet[id] == level && sets.shared(id)) {
                            lowest[id] = new byte[leaves];
                            count[id] = new byte[leaves];
                            sets.merge(id, table, lowest[id], count[id]);
                        }
                    }
                });
                pool.forRange(ranks.levelSize(r), GRAIN, (worker, from, to) -> {
                    DownScratch scratch = scratch(scratches, worker);
                    for (int i = from; i < to; i++) {
                        int s = ranks.levelSwitch(level, i);
                        int id = sets.setOf(s);
                        if (id >= 0 && lowest[id] != null) {
                            sets.lower(s, id, table, neighbours, lowest[id], count[id], scratch.fragile,
                                    scratch.saved8);
                        } else {
                            pullDown(s, scratch);
                        }
                        profiles.profile(table, s, scratch.histogram, scratch.segments);
                    }
                });
                for (int id = 0; id < sets.count(); id++) {
                    if (rankOfSet[id] == level) {
                        lowest[id] = null;
                        count[id] = null;
                    }
                }
            }
            return new Result(table, divider, profiles, null);
        }

        Result update(RoutingPool pool, DmodcRouting previous) {
            int switches = index.switchCount();
            int[] rank = ranks.array();
            int top = ranks.top();
            FabricIndex before = previous.index();
            byte[] then = previous.costs().array();
            int[] rankBefore = previous.ranks();
            RowProfiles profilesBefore = previous.profiles();
            Neighbours neighboursBefore = Neighbours.of(before, rankBefore);
            int words = (leaves + 63) >>> 6;
            int[] map = new int[switches];
            for (int s = 0; s < switches; s++) {
                map[s] = before.switchId(index.switchGuid(s));
            }
            dividers(rank, top);
            boolean[] upRow = new boolean[switches];
            boolean[] coneChanged = new boolean[switches];
            long[][] changed = new long[switches][];
            DownScratch[] scratches = new DownScratch[pool.threads()];
            pool.forRange(switches, 64, (worker, from, to) -> {
                for (int s = from; s < to; s++) {
                    if (rank[s] == Ranking.UNREACHED) {
                        Arrays.fill(c, s * leaves, (s + 1) * leaves, (byte) CostTable.INFINITE);
                        profiles.setUnreachable(s);
                        changed[s] = differences(s, map[s], then, words);
                    }
                }
            });
            // Up: the leaves below each switch, where they may have changed.
            for (int r = 0; r <= top; r++) {
                int level = r;
                pool.forRange(ranks.levelSize(r), GRAIN, (worker, from, to) -> {
                    for (int i = from; i < to; i++) {
                        int s = ranks.levelSwitch(level, i);
                        int p = map[s];
                        boolean dirty = p < 0 || rankBefore[p] != level
                                || !sameSwitches(neighbours.downStart(s), neighbours.downEnd(s), true, neighboursBefore,
                                        p, before);
                        for (int k = neighbours.downStart(s); k < neighbours.downEnd(s) && !dirty; k++) {
                            dirty = coneChanged[neighbours.down(k)];
                        }
                        if (!dirty) {
                            continue;
                        }
                        cone(s, level, map, upRow, then);
                        upRow[s] = true;
                        coneChanged[s] = p < 0 || rankBefore[p] != level || !sameCone(s, p * leaves, level, then);
                    }
                });
            }
            // Down: final rows, copied where nothing they depend on changed.
            for (int r = top; r >= 0; r--) {
                int level = r;
                pool.forRange(ranks.levelSize(r), GRAIN, (worker, from, to) -> {
                    DownScratch scratch = scratch(scratches, worker);
                    for (int i = from; i < to; i++) {
                        int s = ranks.levelSwitch(level, i);
                        int p = map[s];
                        boolean whole = p < 0 || rankBefore[p] != level || coneChanged[s]
                                || !sameSwitches(neighbours.upStart(s), neighbours.upEnd(s), false, neighboursBefore, p,
                                        before);
                        if (!whole) {
                            // Only the leaves where an up neighbour's final row changed can change.
                            long[] columns = scratch.columns(words);
                            int count = 0;
                            for (int k = neighbours.upStart(s); k < neighbours.upEnd(s); k++) {
                                long[] theirs = changed[neighbours.up(k)];
                                if (theirs != null) {
                                    for (int w = 0; w < words; w++) {
                                        columns[w] |= theirs[w];
                                    }
                                    count = -1;
                                }
                            }
                            if (count < 0) {
                                count = 0;
                                for (long bits : columns) {
                                    count += Long.bitCount(bits);
                                }
                            }
                            if (count <= leaves / 8) {
                                System.arraycopy(then, p * leaves, c, s * leaves, leaves);
                                if (count > 0) {
                                    changed[s] = recomputeColumns(s, level, columns, then, p * leaves, words);
                                }
                                if (changed[s] == null) {
                                    profiles.copy(s, profilesBefore, p);
                                } else {
                                    profiles.profile(table, s, scratch.histogram, scratch.segments);
                                }
                                continue;
                            }
                        }
                        if (!upRow[s]) {
                            coneFromFinal(s, p * leaves, level, then);
                        }
                        if (level < top) {
                            pullDown(s, scratch);
                        }
                        profiles.profile(table, s, scratch.histogram, scratch.segments);
                        changed[s] = differences(s, p, then, words);
                    }
                });
            }
            return new Result(table, divider, profiles, changed);
        }

        /**
         * Procedure 1 at the leaves {@code columns} of {@code s} (rank {@code r}), whose row holds the
         * previous one: {@code min(r if the leaf is below s, c[u][l] + 1 over its up neighbours)}.
         * Returns the leaves whose cost changed, or null.
         */
        private long[] recomputeColumns(int s, int r, long[] columns, byte[] then, int before, int words) {
            int row = s * leaves;
            long[] out = null;
            for (int w = 0; w < words; w++) {
                long bits = columns[w];
                while (bits != 0) {
                    int l = (w << 6) + Long.numberOfTrailingZeros(bits);
                    bits &= bits - 1;
                    int best = then[before + l] == r ? r : CostTable.INFINITE;
                    for (int k = neighbours.upStart(s); k < neighbours.upEnd(s); k++) {
                        int v = c[neighbours.up(k) * leaves + l];
                        if (v != CostTable.INFINITE && v + 1 < best) {
                            best = v + 1;
                        }
                    }
                    if (best != c[row + l]) {
                        c[row + l] = (byte) best;
                        if (out == null) {
                            out = new long[words];
                        }
                        out[w] |= 1L << l;
                    }
                }
            }
            return out;
        }

        /** The dividers of every switch, by ranks going up (the divider part of {@link #pullUp}). */
        private void dividers(int[] rank, int top) {
            Arrays.fill(divider, 1);
            for (int r = 1; r <= top; r++) {
                for (int i = 0; i < ranks.levelSize(r); i++) {
                    int s = ranks.levelSwitch(r, i);
                    long pi = 1;
                    for (int k = neighbours.downStart(s); k < neighbours.downEnd(s); k++) {
                        int t = neighbours.down(k);
                        pi = Math.max(pi, (long) divider[t] * neighbours.upCount(t));
                    }
                    divider[s] = (int) Math.min(pi, Integer.MAX_VALUE);
                }
            }
        }

        /**
         * The up-pass row of {@code s} of rank {@code r}: {@code r} at the leaves below one of its
         * down neighbours, infinity elsewhere (its own leaf at 0 for a leaf). A down neighbour's
         * leaves below are where its row holds its rank: the up-pass row when recomputed in this
         * update, else its previous final row.
         */
        private void cone(int s, int r, int[] map, boolean[] upRow, byte[] then) {
            int row = s * leaves;
            Arrays.fill(c, row, row + leaves, (byte) CostTable.INFINITE);
            if (r == 0) {
                c[row + index.leafNumber(s)] = 0;
                return;
            }
            long mine = ByteLanes.ONES * r;
            long theirs = ByteLanes.ONES * (r - 1);
            for (int k = neighbours.downStart(s); k < neighbours.downEnd(s); k++) {
                int t = neighbours.down(k);
                byte[] source = upRow[t] ? c : then;
                int other = upRow[t] ? t * leaves : map[t] * leaves;
                for (int l = 0; l < wide; l += 8) {
                    long equal = equalLanes(ByteLanes.get(source, other + l), theirs);
                    if (equal != 0) {
                        long v = ByteLanes.get(c, row + l);
                        ByteLanes.set(c, row + l, (v & ~equal) | (mine & equal));
                    }
                }
                for (int l = wide; l < leaves; l++) {
                    if (source[other + l] == r - 1) {
                        c[row + l] = (byte) r;
                    }
                }
            }
        }

        /** The up-pass row of {@code s} (rank {@code r}) read off its previous final row at {@code before}. */
        private void coneFromFinal(int s, int before, int r, byte[] then) {
            int row = s * leaves;
            long mine = ByteLanes.ONES * r;
            long inf = ByteLanes.ONES * CostTable.INFINITE;
            for (int l = 0; l < wide; l += 8) {
                long equal = equalLanes(ByteLanes.get(then, before + l), mine);
                ByteLanes.set(c, row + l, (mine & equal) | (inf & ~equal));
            }
            for (int l = wide; l < leaves; l++) {
                c[row + l] = then[before + l] == r ? (byte) r : (byte) CostTable.INFINITE;
            }
        }

        /** True when the up-pass row of {@code s} has the same leaves below as the previous final row at {@code before}. */
        private boolean sameCone(int s, int before, int r, byte[] then) {
            int row = s * leaves;
            long mine = ByteLanes.ONES * r;
            for (int l = 0; l < wide; l += 8) {
                if (equalLanes(ByteLanes.get(c, row + l), mine) != equalLanes(ByteLanes.get(then, before + l), mine)) {
                    return false;
                }
            }
            for (int l = wide; l < leaves; l++) {
                if ((c[row + l] == r) != (then[before + l] == r)) {
                    return false;
                }
            }
            return true;
        }

        /** The leaves where the final row of {@code s} differs from the previous row {@code p} (all for a new switch); null when none. */
        private long[] differences(int s, int p, byte[] then, int words) {
            long[] out = null;
            int row = s * leaves;
            if (p < 0) {
                out = new long[words];
                for (int l = 0; l < leaves; l++) {
                    out[l >>> 6] |= 1L << l;
                }
                return out;
            }
            int before = p * leaves;
            int at = 0;
            while (at < leaves) {
                int m = Arrays.mismatch(c, row + at, row + leaves, then, before + at, before + leaves);
                if (m < 0) {
                    break;
                }
                if (out == null) {
                    out = new long[words];
                }
                out[(at + m) >>> 6] |= 1L << (at + m);
                at += m + 1;
            }
            return out;
        }

        /**
         * True when the down ({@code down}) or up neighbours {@code [from, to)} of a switch are,
         * GUID for GUID in order, those of switch {@code p} of the previous snapshot.
         */
        private boolean sameSwitches(int from, int to, boolean down, Neighbours before, int p, FabricIndex previous) {
            int pf = down ? before.downStart(p) : before.upStart(p);
            int pt = down ? before.downEnd(p) : before.upEnd(p);
            if (to - from != pt - pf) {
                return false;
            }
            for (int k = 0; k < to - from; k++) {
                int mine = down ? neighbours.down(from + k) : neighbours.up(from + k);
                int theirs = down ? before.down(pf + k) : before.up(pf + k);
                if (index.switchGuid(mine) != previous.switchGuid(theirs)) {
                    return false;
                }
            }
            return true;
        }

        /** Per byte: all ones where {@code a} and {@code b} are equal (bytes in [0, 127]), zero elsewhere. */
        private static long equalLanes(long a, long b) {
            return ((~((a ^ b) + 0x7F7F7F7F7F7F7F7FL) & ByteLanes.HIGH) >>> 7) * 0xFF;
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
        /** Scratch for {@link Run#update}: the leaves to recompute in a row, as bits. */
        private long[] columns = new long[0];

        /** {@link #columns}, cleared, of at least {@code words} words. */
        long[] columns(int words) {
            if (columns.length < words) {
                columns = new long[words];
            }
            Arrays.fill(columns, 0, words, 0L);
            return columns;
        }

        /** Scratch for {@link UpSets#lower}: the leaves it recomputes and their values before. */
        final int[] fragile;
        final byte[] saved8;
        int leafEpoch;

        DownScratch(int leaves) {
            events = new BoundaryEvents(leaves);
            segments = new int[3 * (leaves / 8) + 3];
            leafStamp = new int[leaves];
            leafCount = new int[leaves];
            fragile = new int[leaves];
            saved8 = new byte[leaves];
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
