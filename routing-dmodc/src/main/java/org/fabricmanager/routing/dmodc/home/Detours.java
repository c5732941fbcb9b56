package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.fabricmanager.topology.FabricIndex;

/**
 * Where sources outside a pod send part of the traffic for a <em>weak</em> home: a destination whose home level-1
 * switch kept fewer ports up than the most any switch of its pod kept ({@code top}), at a position where some pod of
 * its width kept that many (a plane that lost a top switch everywhere has no weak home: its switches all lost the
 * same, and the stand-ins spread its homes, {@link StandIns}). Why: every source outside the pod sends a destination
 * up its home plane, so it comes into its pod through its home switch's links up; a switch that lost 7 of 16 takes
 * its homes' traffic over 9 links, two whole destinations on most, and those links down carry the all-to-all
 * maximum. Each such home has a <em>detour</em>: a switch of its pod with more ports up, linked to its leaf, a
 * different one for each weak home of the leaf (the fewest detours in the pod so far, then the most ports up, then
 * the lowest position), so that a link down to the leaf carries its own home and one detour at most.
 *
 * <p>Source leaf number {@code k} sends home position {@code h} of leaf {@code l} (a candidate) by its detour
 * {@code v} (a candidate too) when {@code (k + l) mod 4·top - 3·top >= up(h)} ({@code up}: ports up) and its own
 * pod's switch at {@code v} has at least as many ports up as its switch at {@code h}. For one destination that is
 * {@code (top - up(h)) / 4·top} of the sources, less those whose detour would load a weaker switch of their own (a
 * switch that lost links up carries the random permutations' maximum on its links up); for one source, a different
 * set of destinations from leaf to leaf (the shift). A quarter of the deficit, not all of it: each detour is an
 * extra at the source's level-1 switch, and the random mean rises with them (measured: performance.md, "Detours for
 * weak homes").
 *
 * <p>Built once per routing, read by the pods' workers. Pods of more than {@value Long#SIZE} positions have none.
 */
final class Detours {
    /** The sources that take a detour: {@code 1 / SPREAD} of the home switch's lost share. */
    private static final int SPREAD = 4;

    private final int[] leafPod;
    /** Per pod ({@code null}: none), its switches' ports up by position. */
    private final int[][] up;
    /** Per pod, {@code 4·top} and its magic for {@link Bits#mod(long, int, long)}. */
    private final int[] cycle;
    private final long[] magic;
    /**
     * Per pod and {@code x < top}, its weak positions with at most {@code x} ports up: below the pod's most, at a
     * position where some pod of its width has that many (a plane that lost a top switch everywhere has none).
     */
    private final long[][] weakAt;
    /** Per leaf number, the positions of its weak homes that have a detour, and per position that detour. */
    private final long[] detoured;
    private final byte[][] detour;

    private Detours(int[] leafPod, int[][] up, long[][] weakAt, long[] detoured, byte[][] detour) {
        this.leafPod = leafPod;
        this.up = up;
        this.weakAt = weakAt;
        this.detoured = detoured;
        this.detour = detour;
        this.cycle = new int[up.length];
        this.magic = new long[up.length];
        for (int p = 0; p < up.length; p++) {
            cycle[p] = weakAt[p] == null ? 0 : SPREAD * weakAt[p].length;
            magic[p] = cycle[p] == 0 ? 0 : Bits.magic(cycle[p]);
        }
    }

    /** The detours of the level-1 pods {@code pods} of {@code index} ranked by {@code ranks}. */
    static Detours of(FabricIndex index, int[] ranks, Pods pods) {
        int leaves = index.leafCount();
        int[] leafPod = new int[leaves];
        for (int l = 0; l < leaves; l++) {
            leafPod[l] = pods.podOf(index.leaves()[l]);
        }
        int[][] up = new int[pods.count()][];
        Map<Integer, int[]> planeTops = new HashMap<>();
        for (int p = 0; p < pods.count(); p++) {
            int[] members = pods.upper(p);
            if (members.length > Long.SIZE || !pods.regular(p)) {
                continue;
            }
            up[p] = new int[members.length];
            int[] tops = planeTops.computeIfAbsent(members.length, w -> new int[w]);
            for (int i = 0; i < members.length; i++) {
                up[p][i] = members[i] < 0 ? 0 : portsUp(index, ranks, members[i]);
                tops[i] = Math.max(tops[i], up[p][i]);
            }
        }
        long[][] weakAt = new long[pods.count()][];
        long[] detoured = new long[leaves];
        byte[][] detour = new byte[leaves][];
        for (int p = 0; p < pods.count(); p++) {
            if (up[p] == null) {
                continue;
            }
            int[] plane = planeTops.get(up[p].length);
            int top = Arrays.stream(up[p]).max().orElse(0);
            long weak = 0;
            for (int i = 0; i < up[p].length; i++) {
                weak |= pods.upper(p)[i] >= 0 && up[p][i] < top && plane[i] >= top ? 1L << i : 0;
            }
            if (weak == 0) {
                continue;
            }
            weakAt[p] = new long[top];
            for (int x = 0; x < top; x++) {
                for (long m = weak; m != 0; m &= m - 1) {
                    int i = Long.numberOfTrailingZeros(m);
                    weakAt[p][x] |= up[p][i] <= x ? 1L << i : 0;
                }
            }
            assign(index, pods, p, up[p], weak, detoured, detour);
        }
        return new Detours(leafPod, up, weakAt, detoured, detour);
    }

    /** Each weak home of each leaf of pod {@code p} its detour, leaf by leaf in id order, position by position. */
    private static void assign(FabricIndex index, Pods pods, int p, int[] up, long weak, long[] detoured,
            byte[][] detour) {
        int n = up.length;
        int[] taken = new int[n];
        for (int s : pods.lower(p)) {
            int l = index.leafNumber(s);
            long linked = 0;
            for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
                int u = index.groupNeighbour(g);
                linked |= pods.podOf(u) == p && pods.slot(u) >= 0 ? 1L << pods.slot(u) : 0;
            }
            byte[] to = new byte[n];
            Arrays.fill(to, (byte) -1);
            long used = 0;
            for (long homes = linked & weak; homes != 0; homes &= homes - 1) {
                int h = Long.numberOfTrailingZeros(homes);
                int best = -1;
                for (long m = linked & ~used; m != 0; m &= m - 1) {
                    int i = Long.numberOfTrailingZeros(m);
                    if (up[i] > up[h] && (best < 0 || taken[i] < taken[best]
                            || taken[i] == taken[best] && up[i] > up[best])) {
                        best = i;
                    }
                }
                if (best >= 0) {
                    to[h] = (byte) best;
                    used |= 1L << best;
                    taken[best]++;
                    detoured[l] |= 1L << h;
                }
            }
            detour[l] = to;
        }
    }

    private static int portsUp(FabricIndex index, int[] ranks, int u) {
        int ports = 0;
        for (int g = index.groupStart(u), to = g + index.groupCount(u); g < to; g++) {
            ports += ranks[index.groupNeighbour(g)] > ranks[u] ? index.groupSize(g) : 0;
        }
        return ports;
    }

    /**
     * The home positions of leaf {@code l} that source leaf number {@code k}, of pod {@code p} with {@code n}
     * positions, sends by their detours, among its candidates {@code mask} (a detour must be one too).
     */
    long of(int k, int l, int p, long mask, int n) {
        long homes = mask & detoured[l]; // not 0: leaf l's pod has weak homes, so up[q] is set
        int q = leafPod[l];
        if (homes == 0 || q == p || up[p] == null || up[p].length != n || up[q].length != n) {
            return 0;
        }
        int x = Bits.mod(k + l, cycle[q], magic[q]) - cycle[q] + weakAt[q].length;
        homes &= x < 0 ? 0 : weakAt[q][x];
        long sent = 0;
        for (; homes != 0; homes &= homes - 1) {
            int h = Long.numberOfTrailingZeros(homes);
            int v = detour[l][h];
            sent |= up[p][v] >= up[p][h] ? (mask >>> v & 1) << h : 0;
        }
        return sent;
    }

    /** The detour of leaf {@code l}'s home at position {@code h} (one that {@link #of} gave). */
    int to(int l, int h) {
        return detour[l][h];
    }
}
