package org.fabricmanager.routing.dmodc.preprocess;

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
public final class CostDivider extends CostRows {
    /** Switches of one rank a worker takes at a time. */
    static final int GRAIN = 16;

    /** Going up: the leaves with a finite cost, for rows that have few; null for dense rows. */
    private final int[][] finite;
    private final int sparseLimit;
    private final DmodcShortcuts shortcuts;

    /**
     * The result: costs and dividers, indexed by switch id. After an incremental update, also the
     * leaves at which each row differs from the previous snapshot's row of the same switch
     * ({@code null} rows: unchanged; every leaf for a new switch); {@code null} after a
     * {@link #compute}.
     */
    public record Result(CostTable costs, int[] dividers, RowProfiles profiles, long[][] changed) {
    }

    private CostDivider(FabricIndex index, Ranks ranks, Neighbours neighbours, DmodcShortcuts shortcuts) {
        super(index, ranks, neighbours);
        this.finite = new int[index.switchCount()][];
        // Without the sparse pull no row is listed (a leaf's neither), so every row is pulled whole.
        this.sparseLimit = shortcuts.on(DmodcShortcuts.Shortcut.SPARSE_PULL) ? leaves / 16 : -1;
        this.shortcuts = shortcuts;
    }

    /** Costs, dividers and profiles of every switch of {@code index}, ranks in parallel on {@code pool}. */
    public static Result compute(FabricIndex index, Ranks ranks, Neighbours neighbours, RoutingPool pool) {
        return compute(index, ranks, neighbours, pool, DmodcShortcuts.ALL);
    }

    /** The same, taking only the {@code shortcuts} given ({@link DmodcShortcuts.Shortcut#SPARSE_PULL} here). */
    public static Result compute(FabricIndex index, Ranks ranks, Neighbours neighbours, RoutingPool pool,
                          DmodcShortcuts shortcuts) {
        return new CostDivider(index, ranks, neighbours, shortcuts).compute(pool);
    }

    private Result compute(RoutingPool pool) {
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
            DownScratch scratch = DownScratch.of(scratches, worker, leaves);
            for (int s = from; s < to; s++) {
                if (rank[s] == Ranking.UNREACHED) {
                    Arrays.fill(c, s * leaves, (s + 1) * leaves, (byte) CostTable.INFINITE);
                    profiles.setUnreachable(s);
                } else if (rank[s] == 0) {
                    Arrays.fill(c, s * leaves, (s + 1) * leaves, (byte) CostTable.INFINITE);
                    int own = index.leafNumber(s);
                    c[s * leaves + own] = 0;
                    finite[s] = sparseLimit >= 0 ? new int[] {own} : null;
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
                DownScratch scratch = DownScratch.of(scratches, worker, leaves);
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
                DownScratch scratch = DownScratch.of(scratches, worker, leaves);
                for (int i = from; i < to; i++) {
                    int s = ranks.levelSwitch(level, i);
                    int id = sets.setOf(s);
                    if (id >= 0 && lowest[id] != null) {
                        sets.lower(s, id, table, neighbours, lowest[id], count[id], scratch.fragile,
                                scratch.saved8);
                    } else {
                        down.pullDown(s, scratch);
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
            shortcuts.hit(DmodcShortcuts.Shortcut.SPARSE_PULL);
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
}
