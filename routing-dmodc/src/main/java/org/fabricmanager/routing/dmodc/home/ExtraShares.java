package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;

/**
 * Where a pod's leaves send their <em>extras</em> (the destinations whose home level-1 switch is not a candidate,
 * {@link HomePlanes}): in shares by load, leaf by leaf. Why: a level-1 switch that lost links up still takes the
 * home destinations of every leaf linked to it, so its links up carry more than the pod's others; extras spread by
 * count alone add the same to it. Sending more of them to the switches with more links up evens those links, and
 * weighing each leaf's own links keeps them even too (moving homes from every leaf alike loads the leaves' links).
 *
 * <p>Loads count (leaf, destination) pairs, {@code n} units each ({@code n}: the pod's level-1 positions): a leaf's
 * link to a linked switch carries {@code R} units of homes ({@code R}: the destinations outside the pod), a switch
 * {@code R} per leaf linked below, plus {@code n} per extra taken. For each leaf ({@link #startLeaf}), its extras'
 * expected units {@code (n - c) × R} ({@code c}: the switches it is linked to) are cut into {@code 2n} batches (each
 * at least one extra's units, as a leaf linked to all may still have extras towards a few leaves), each given to the
 * linked switch where it raises {@code L⁶ + (S / u)⁶} the least ({@code L}: the leaf's link, {@code S}: the switch,
 * {@code u}: its ports up; the lowest position among equals): a steep cost, as a random permutation's maximum is
 * made by the links that carry the most. The batches per switch become a cycle of {@code 2n} positions (smooth
 * weighted round robin: each step adds every switch's batches to its credit and takes the highest, lowest position
 * among equals, less {@code 2n}), which the leaf walks from position {@code k mod 2n} ({@code k}: its number, so the
 * pod's leaves do not all start on one switch). Each extra, taken in destination order, goes to the next switch of
 * the cycle that is a candidate and took none of this leaf's extras within the {@code n} destinations before (a
 * shift sends {@code n} consecutive destinations from a leaf: they go up different links); else the next candidate
 * of the cycle; else the caller's formula ({@link #take}).
 *
 * <p>One per pod, on the worker that routes its leaves, the leaves in id order. Positions with no switch (a pod's
 * gaps, {@link Pods}) have no ports up and never take a batch.
 */
final class ExtraShares {
    /** Batches per position: enough to follow the loads, few enough to cost {@code O(n²)} per leaf. */
    private static final int BATCHES_PER_POSITION = 2;

    private final int n;
    private final long remote;
    /** Per position: its switch's units (homes of every linked leaf, then extras as taken). */
    private final long[] load;
    /** Per position: its switch's ports up (0: no switch, or none). */
    private final int[] up;
    /** The leaf at hand's cycle of positions, one per batch ({@code -1}: no position can take extras). */
    private final int[] cycle;
    /** Per position: the last destination the leaf at hand sent there as an extra. */
    private final int[] lastDestination;
    /** Per position: the units of the leaf at hand's batches given to it. */
    private final long[] taken;
    /** Per position: its credit in the round robin that orders the cycle. */
    private final long[] credit;
    /** Per position: the number of the leaf at hand's batches given to it. */
    private final int[] batchesOf;
    /** Per position: the cost with the leaf at hand's batches so far. */
    private final double[] now;
    /** Where in the cycle the leaf at hand's next extra starts looking. */
    private int next;
    /** The leaf at hand: its linked positions, its number, and whether its cycle is worked out. */
    private long linked;
    private int leaf;
    private boolean ready;

    /**
     * The shares of a pod whose level-1 switches are {@code members} by position ({@code -1}: none), ranked by
     * {@code ranks}, with {@code remote} destinations outside it.
     */
    ExtraShares(FabricIndex index, int[] ranks, int[] members, int remote) {
        this.n = members.length;
        this.remote = remote;
        this.load = new long[n];
        this.up = new int[n];
        this.cycle = new int[BATCHES_PER_POSITION * n];
        this.lastDestination = new int[n];
        this.taken = new long[n];
        this.credit = new long[n];
        this.batchesOf = new int[n];
        this.now = new double[n];
        for (int i = 0; i < n; i++) {
            int u = members[i];
            if (u < 0) {
                continue;
            }
            for (int g = index.groupStart(u), to = g + index.groupCount(u); g < to; g++) {
                int rank = ranks[index.groupNeighbour(g)];
                if (rank > ranks[u]) {
                    up[i] += index.groupSize(g);
                } else if (rank < ranks[u]) {
                    load[i] += remote;
                }
            }
        }
    }

    /**
     * Makes leaf number {@code k}, linked to the positions in {@code linked}, the one whose extras are placed; its
     * cycle is worked out at its first extra (most leaves have none where few links are lost).
     */
    void startLeaf(long linked, int k) {
        Arrays.fill(lastDestination, Integer.MIN_VALUE / 2);
        this.linked = linked;
        this.leaf = k;
        this.ready = false;
    }

    /** The leaf at hand's batches and cycle, from the loads as they are before its first extra. */
    private void shareOut() {
        ready = true;
        int k = leaf;
        Arrays.fill(taken, 0);
        Arrays.fill(credit, 0);
        Arrays.fill(batchesOf, 0);
        long usable = 0;
        for (long m = linked; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            usable |= up[i] > 0 ? 1L << i : 0;
        }
        int batches = cycle.length;
        if (usable == 0) {
            Arrays.fill(cycle, -1);
            return;
        }
        long units = (n - Long.bitCount(linked)) * remote;
        for (long m = usable; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            now[i] = cost(remote, load[i], up[i]);
        }
        for (int j = 0; j < batches; j++) {
            long size = Math.max(n, units * (j + 1) / batches - units * j / batches);
            int best = -1;
            double least = 0;
            double after = 0;
            for (long m = usable; m != 0; m &= m - 1) {
                int i = Long.numberOfTrailingZeros(m);
                double raised = cost(remote + taken[i] + size, load[i] + taken[i] + size, up[i]);
                if (best < 0 || raised - now[i] < least) {
                    best = i;
                    least = raised - now[i];
                    after = raised;
                }
            }
            taken[best] += size;
            now[best] = after;
            batchesOf[best]++;
        }
        for (int t = 0; t < batches; t++) {
            int best = -1;
            for (long m = usable; m != 0; m &= m - 1) {
                int i = Long.numberOfTrailingZeros(m);
                credit[i] += batchesOf[i];
                best = best < 0 || credit[i] > credit[best] ? i : best;
            }
            credit[best] -= batches;
            cycle[t] = best;
        }
        next = k % batches;
    }

    /**
     * The position for extra {@code d} of the leaf at hand among the candidates {@code mask}, counted as taken; -1
     * when the cycle has none of them (then the caller's choice is counted by {@link #take}).
     */
    int choose(long mask, int d) {
        if (!ready) {
            shareOut();
        }
        int batches = cycle.length;
        int fallback = -1;
        for (int t = 0; t < batches; t++) {
            int at = next + t < batches ? next + t : next + t - batches;
            int i = cycle[at];
            if (i < 0 || (mask >>> i & 1) == 0) {
                continue;
            }
            int since = d - lastDestination[i];
            if (since >= n || since <= -n) {
                next = at + 1 == batches ? 0 : at + 1;
                return take(i, d);
            }
            fallback = fallback < 0 ? at : fallback;
        }
        if (fallback >= 0) {
            next = fallback + 1 == batches ? 0 : fallback + 1;
            return take(cycle[fallback], d);
        }
        return -1;
    }

    /**
     * Counts position {@code i} as taken by extra {@code d} of the leaf at hand; returns {@code i}. The cycle is
     * worked out first, from the loads before the leaf's first extra (a detour, {@link Detours}, may come first).
     */
    int take(int i, int d) {
        if (!ready) {
            shareOut();
        }
        lastDestination[i] = d;
        load[i] += n;
        return i;
    }

    /** The steep cost of a leaf's link at {@code leaf} units and a switch at {@code own} units over {@code ports}. */
    private static double cost(long leaf, long own, int ports) {
        double a = leaf;
        double b = (double) own / ports;
        double a2 = a * a;
        double b2 = b * b;
        return a2 * a2 * a2 + b2 * b2 * b2;
    }
}
