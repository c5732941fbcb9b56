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
 * <p>Rows are compared eight leaves at a time ({@link ByteLanes}), and two shortcuts skip work
 * whose result is known, without changing any value: going up, a row with few finite costs (a
 * leaf's, or a low switch's) is pulled entry by entry from its list of finite leaves; going down,
 * up neighbours whose rows are identical (all spines of an intact pod, say) are pulled once.
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
        /** Final rows, profiled as soon as they are final (rank by rank going down). */
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
            Arrays.fill(divider, 1);
            // Rows of leaves and of unreached switches are set here; the up pass writes the others.
            pool.forRange(switches, 64, (worker, from, to) -> {
                for (int s = from; s < to; s++) {
                    if (rank[s] == 0 || rank[s] == Ranking.UNREACHED) {
                        Arrays.fill(c, s * leaves, (s + 1) * leaves, (byte) CostTable.INFINITE);
                        if (rank[s] == 0) {
                            int own = index.leafNumber(s);
                            c[s * leaves + own] = 0;
                            finite[s] = new int[] {own};
                        }
                    }
                }
            });
            int top = ranks.top();
            for (int r = 1; r <= top; r++) {
                int level = r;
                pool.forRange(ranks.levelSize(r), GRAIN, (worker, from, to) -> {
                    for (int i = from; i < to; i++) {
                        pullUp(ranks.levelSwitch(level, i));
                    }
                });
            }
            pool.forRange(switches, 64, (worker, from, to) -> {
                int[] histogram = new int[CostTable.INFINITE + 1];
                for (int s = from; s < to; s++) {
                    if (rank[s] == Ranking.UNREACHED) {
                        profiles.setUnreachable(s);
                    } else if (rank[s] == top) {
                        profiles.profile(table, s, histogram);
                    }
                }
            });
            DownScratch[] scratches = new DownScratch[pool.threads()];
            for (int r = top - 1; r >= 0; r--) {
                int level = r;
                pool.forRange(ranks.levelSize(r), GRAIN, (worker, from, to) -> {
                    if (scratches[worker] == null) {
                        scratches[worker] = new DownScratch(leaves);
                    }
                    DownScratch scratch = scratches[worker];
                    for (int i = from; i < to; i++) {
                        int s = ranks.levelSwitch(level, i);
                        pullDown(s, scratch);
                        profiles.profile(table, s, scratch.histogram);
                    }
                });
            }
            return new Result(table, divider, profiles);
        }

        /** Costs and divider of {@code s} from its down neighbours (first pass of Procedure 1). */
        private void pullUp(int s) {
            int row = s * leaves;
            Arrays.fill(c, row, row + leaves, (byte) CostTable.INFINITE);
            long pi = 1;
            boolean sparse = true;
            for (int i = neighbours.downStart(s); i < neighbours.downEnd(s); i++) {
                int t = neighbours.down(i);
                long candidate = (long) divider[t] * neighbours.upCount(t);
                if (candidate > pi) {
                    pi = candidate;
                }
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
                sparse = false;
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
            // Dividers beyond every destination index all give floor(d / Π) = 0: saturating keeps that exact.
            divider[s] = (int) Math.min(pi, Integer.MAX_VALUE);
            finite[s] = sparse ? finiteLeaves(row) : null;
        }

        /** The leaves with a finite cost in the row at {@code row}, or null when there are many. */
        private int[] finiteLeaves(int row) {
            int count = 0;
            for (int l = 0; l < leaves; l++) {
                if (c[row + l] != CostTable.INFINITE && ++count > sparseLimit) {
                    return null;
                }
            }
            int[] list = new int[count];
            for (int l = 0, n = 0; l < leaves; l++) {
                if (c[row + l] != CostTable.INFINITE) {
                    list[n++] = l;
                }
            }
            return list;
        }

        /**
         * Lowers the costs of {@code s} through its up neighbours (second pass of Procedure 1):
         * {@code c[s][l] = min(c[s][l], c[u][l] + 1)} over the up neighbours {@code u}, using
         * their profiles. With {@code M} the smallest mode among them, every leaf where some
         * neighbour of mode {@code M} is at its mode gets {@code min(c, M + 1)} in one pass over the
         * row, then the segments below {@code M} lower it further; the few leaves where every
         * neighbour of mode {@code M} is in a segment are computed neighbour by neighbour.
         * Neighbours without a profile are pulled leaf by leaf.
         */
        private void pullDown(int s, DownScratch x) {
            int row = s * leaves;
            int lowest = Integer.MAX_VALUE;
            int atLowest = 0;
            for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                int u = neighbours.up(i);
                if (profiles.segments(u) == null) {
                    pullWhole(row, u * leaves);
                } else if (profiles.mode(u) < lowest) {
                    lowest = profiles.mode(u);
                    atLowest = 1;
                } else if (profiles.mode(u) == lowest) {
                    atLowest++;
                }
            }
            if (atLowest == 0 || lowest == CostTable.INFINITE) {
                // no profiled neighbour, or all of their modes infinite: only their segments matter
                if (atLowest > 0) {
                    pullExceptions(s, row, CostTable.INFINITE);
                }
                return;
            }
            // Leaves where every neighbour of the lowest mode has an exception.
            if (++x.epoch == 0) {
                Arrays.fill(x.stamp, 0);
                x.epoch = 1;
            }
            int excepted = 0;
            for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                int u = neighbours.up(i);
                int[] segments = profiles.segments(u);
                if (segments == null || profiles.mode(u) != lowest) {
                    continue;
                }
                for (int g = 0; g < segments.length; g += 3) {
                    for (int l = segments[g]; l < segments[g + 1]; l++) {
                        if (x.stamp[l] != x.epoch) {
                            x.stamp[l] = x.epoch;
                            x.count[l] = 0;
                        }
                        if (++x.count[l] == atLowest) {
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
            long viaMode = ByteLanes.ONES * (lowest + 1);
            for (int l = 0; l < wide; l += 8) {
                ByteLanes.set(c, row + l, ByteLanes.min(ByteLanes.get(c, row + l), viaMode));
            }
            for (int l = wide; l < leaves; l++) {
                if (lowest + 1 < c[row + l]) {
                    c[row + l] = (byte) (lowest + 1);
                }
            }
            for (int k = 0; k < excepted; k++) {
                int l = x.excepted[k];
                int best = x.saved[k];
                for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                    int u = neighbours.up(i);
                    int v = c[u * leaves + l];
                    if (v != CostTable.INFINITE && v + 1 < best) {
                        best = v + 1;
                    }
                }
                c[row + l] = (byte) best;
            }
            pullExceptions(s, row, lowest);
        }

        /** {@code c[s][l] = min(c[s][l], c[u][l] + 1)} over the profiled up neighbours' segments below {@code below}. */
        private void pullExceptions(int s, int row, int below) {
            for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                int u = neighbours.up(i);
                int[] segments = profiles.segments(u);
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

    /** One worker's scratch for {@link Run#pullDown}. */
    private static final class DownScratch {
        final int[] histogram = new int[CostTable.INFINITE + 1];
        final int[] stamp;
        final int[] count;
        int[] excepted = new int[16];
        int[] saved = new int[16];
        int epoch;

        DownScratch(int leaves) {
            stamp = new int[leaves];
            count = new int[leaves];
        }
    }
}
