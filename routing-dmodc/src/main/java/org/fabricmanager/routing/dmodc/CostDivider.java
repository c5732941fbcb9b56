package org.fabricmanager.routing.dmodc;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;

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
 * barrier per rank going up, then one per rank going down. Costs are compared eight leaves at a
 * time ({@link ByteLanes}).
 */
final class CostDivider {
    private static final int GRAIN = 16;

    private CostDivider() {
    }

    /** The result: costs and dividers, indexed by switch id. */
    record Result(CostTable costs, int[] dividers) {
    }

    static Result compute(FabricIndex index, Ranks ranks, Neighbours neighbours, RoutingPool pool) {
        int switches = index.switchCount();
        int leaves = index.leafCount();
        CostTable table = new CostTable(switches, leaves);
        byte[] c = table.array();
        int[] divider = new int[switches];
        Arrays.fill(divider, 1);
        int[] rank = ranks.array();

        // Rows of leaves and of unreached switches are initialised here; the up pass writes the others.
        pool.forRange(switches, 64, (worker, from, to) -> {
            for (int s = from; s < to; s++) {
                if (rank[s] == 0 || rank[s] == org.fabricmanager.topology.Ranking.UNREACHED) {
                    Arrays.fill(c, s * leaves, (s + 1) * leaves, (byte) CostTable.INFINITE);
                    if (rank[s] == 0) {
                        c[s * leaves + index.leafNumber(s)] = 0;
                    }
                }
            }
        });
        for (int r = 1; r <= ranks.top(); r++) {
            int level = r;
            pool.forRange(ranks.levelSize(r), GRAIN, (worker, from, to) -> {
                for (int i = from; i < to; i++) {
                    pullUp(ranks.levelSwitch(level, i), c, leaves, neighbours, divider);
                }
            });
        }
        for (int r = ranks.top() - 1; r >= 0; r--) {
            int level = r;
            pool.forRange(ranks.levelSize(r), GRAIN, (worker, from, to) -> {
                for (int i = from; i < to; i++) {
                    pullDown(ranks.levelSwitch(level, i), c, leaves, neighbours);
                }
            });
        }
        return new Result(table, divider);
    }

    /** Costs and divider of {@code s} from its down neighbours (first pass of Procedure 1). */
    private static void pullUp(int s, byte[] c, int leaves, Neighbours neighbours, int[] divider) {
        int row = s * leaves;
        int wide = leaves & ~7;
        Arrays.fill(c, row, row + leaves, (byte) CostTable.INFINITE);
        long pi = 1;
        for (int i = neighbours.downStart(s); i < neighbours.downEnd(s); i++) {
            int t = neighbours.down(i);
            long candidate = (long) divider[t] * neighbours.upCount(t);
            if (candidate > pi) {
                pi = candidate;
            }
            int other = t * leaves;
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
    }

    /** Lowers the costs of {@code s} through its up neighbours (second pass of Procedure 1). */
    private static void pullDown(int s, byte[] c, int leaves, Neighbours neighbours) {
        int row = s * leaves;
        int wide = leaves & ~7;
        for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
            int other = neighbours.up(i) * leaves;
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
}
