package org.fabricmanager.routing.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.fabricmanager.topology.FabricIndex;

/**
 * An experiment, not an engine: {@link LoadMoves}' moves (a pod's leaves, or a level-1 switch, send a destination to
 * another neighbour above as close to it) scored by the random permutations' peaks instead of the all-to-all
 * bottleneck ({@link PeakMovesBenchmark}). A fixed sample of seeded permutations is routed once; per permutation
 * and link the routes it puts there are kept, so a move is scored exactly: first by how much it changes the sum over
 * the sample of each permutation's busiest link (the quantity whose mean is {@code quality}'s random mean), then by
 * how many (permutation, link) pairs sit at their permutation's maximum, over links up and down alike. A move is
 * made only if it lowers that score, keeps {@link LoadMoves#limitShift}'s cap and, with {@link #limitAllToAll}, puts
 * no more all-to-all routes on a link of its new paths than the cap ({@link #onlyLowerMaxima}: only if it lowers the
 * sum). A move changes one route per permutation at
 * most (the one whose source sends to the moved destination), so a candidate costs a few links per permutation.
 */
final class PeakMoves {
    /** Weight of one unit of a permutation's maximum against one (permutation, link) pair at it. */
    private static final long MAX_WEIGHT = 1L << 32;
    private static final int LOADS = 128;

    private final FabricIndex index;
    private final LoadMoves moves;
    /** The destinations with a node attached, in order; a permutation maps their positions. */
    private final int[] attached;
    /** Per permutation and attached position, the leaf number of the node that sends to it; -1: itself. */
    private final short[][] sender;
    /** Per permutation and link, the routes it puts there. */
    private final byte[][] loads;
    /** Per permutation and load, how many links carry it. */
    private final int[][] histogram;
    /** Per permutation, its busiest link's load. */
    private final int[] peak;
    /** Per leaf number, the links from it to the current destination, and their number. */
    private final int[][] paths;
    private final int[] pathLength;
    /** Per leaf number, the hop at which its path to the current destination meets a moving switch; -1: none. */
    private final int[] at;
    /** Per switch, whether it is among the moving ones (set only while a move is scored). */
    private final boolean[] member;
    private final int[] tail = new int[32];
    private final int[] newPath = new int[33];
    private long allToAllCap = Long.MAX_VALUE;
    private boolean strict;

    PeakMoves(FabricIndex index, LoadMoves moves, int permutations, long seed) {
        this.index = index;
        this.moves = moves;
        int leaves = index.leafCount();
        this.attached = IntStream.range(0, moves.destinationCount())
                .filter(d -> moves.leafOf(d) >= 0).toArray();
        int n = attached.length;
        this.sender = new short[permutations][n];
        int[] permutation = new int[n];
        for (int p = 0; p < permutations; p++) {
            CongestionAnalyzer.fill(permutation, seed, p);
            for (int i = 0; i < n; i++) {
                sender[p][permutation[i]] = (short) (permutation[i] == i ? -1 : moves.leafOf(attached[i]));
            }
        }
        this.paths = new int[leaves][32];
        this.pathLength = new int[leaves];
        this.at = new int[leaves];
        this.member = new boolean[index.switchCount()];
        this.loads = new byte[permutations][moves.linkCount()];
        this.histogram = new int[permutations][LOADS];
        this.peak = new int[permutations];
        route(loads);
        for (int p = 0; p < permutations; p++) {
            for (byte b : loads[p]) {
                histogram[p][b]++;
            }
            peak[p] = topOf(histogram[p]);
        }
    }

    /** From now on, a move whose new paths would carry more than {@code cap} all-to-all routes on a link is refused. */
    void limitAllToAll(long cap) {
        allToAllCap = cap;
    }

    /** From now on, only moves that lower some permutation's maximum (not merely the pairs at it) are made. */
    void onlyLowerMaxima() {
        strict = true;
    }

    /** The mean over the sample of each permutation's busiest link, as kept. */
    double sampleMean() {
        return Arrays.stream(peak).average().orElse(0);
    }

    /** The sample's mean recounted from the tables as moved (a check of the kept loads). */
    double recountedMean() {
        byte[][] fresh = new byte[loads.length][moves.linkCount()];
        route(fresh);
        double sum = 0;
        for (int p = 0; p < fresh.length; p++) {
            if (!Arrays.equals(fresh[p], loads[p])) {
                throw new IllegalStateException("kept loads differ from the tables' in permutation " + p);
            }
            int max = 0;
            for (byte b : fresh[p]) {
                max = Math.max(max, b);
            }
            sum += max;
        }
        return sum / fresh.length;
    }

    private void route(byte[][] into) {
        for (int j = 0; j < attached.length; j++) {
            pathsTo(attached[j]);
            for (int p = 0; p < into.length; p++) {
                int l = sender[p][j];
                for (int k = 0; l >= 0 && k < pathLength[l]; k++) {
                    into[p][paths[l][k]]++;
                }
            }
        }
    }

    /** One round of moves by the leaves of each pod together; returns how many were made. */
    int podRound() {
        int made = 0;
        List<int[]> pods = moves.pods();
        boolean[] hot = new boolean[index.leafCount()];
        for (int j = 0; j < attached.length; j++) {
            int d = attached[j];
            pathsTo(d);
            Arrays.fill(hot, false);
            for (int p = 0; p < sender.length; p++) {
                int l = sender[p][j];
                hot[Math.max(l, 0)] |= l >= 0 && touchesPeak(p, l, 0);
            }
            int target = index.leaves()[moves.leafOf(d)];
            for (int[] pod : pods) {
                if (Arrays.stream(pod).anyMatch(s -> s == target)) {
                    continue;
                }
                Map<Integer, List<Integer>> byNext = new TreeMap<>();
                for (int s : pod) {
                    int next = moves.next(s, d);
                    if (next >= 0) {
                        byNext.computeIfAbsent(next, k -> new ArrayList<>()).add(s);
                    }
                }
                for (List<Integer> group : byNext.values()) {
                    // the pod's leaves that send d to one switch move together, so that it keeps one path down
                    if (group.stream().anyMatch(s -> hot[index.leafNumber(s)])) {
                        made += tryMove(group.stream().mapToInt(Integer::intValue).toArray(), j, d) ? 1 : 0;
                    }
                }
            }
        }
        return made;
    }

    /** One round of moves by each level-1 switch alone; returns how many were made. */
    int levelOneRound() {
        int made = 0;
        boolean[] flagged = new boolean[index.switchCount()];
        int[] order = new int[index.switchCount()];
        for (int j = 0; j < attached.length; j++) {
            int d = attached[j];
            pathsTo(d);
            int count = 0;
            for (int p = 0; p < sender.length; p++) {
                int l = sender[p][j];
                if (l >= 0 && pathLength[l] > 2 && touchesPeak(p, l, 1)) {
                    int u = index.groupNeighbour(paths[l][0]);
                    order[count] = u;
                    count += flagged[u] ? 0 : 1;
                    flagged[u] = true;
                }
            }
            Arrays.sort(order, 0, count);
            for (int i = 0; i < count; i++) {
                flagged[order[i]] = false;
                made += tryMove(new int[] {order[i]}, j, d) ? 1 : 0;
            }
        }
        return made;
    }

    /** Whether the current destination's path from leaf {@code l}, from its {@code from}-th link, meets p's peak. */
    private boolean touchesPeak(int p, int l, int from) {
        for (int k = from; k < pathLength[l]; k++) {
            if (loads[p][paths[l][k]] == peak[p]) {
                return true;
            }
        }
        return false;
    }

    /** Moves {@code d} (attached position {@code j}) of {@code members} to the best-scoring neighbour, if any. */
    private boolean tryMove(int[] members, int j, int d) {
        int[] alternatives = moves.alternatives(members, d);
        if (alternatives.length == 0) {
            return false;
        }
        Arrays.stream(members).forEach(s -> member[s] = true);
        int[] affected = new int[sender.length];
        int n = 0;
        for (int l = 0; l < at.length; l++) {
            at[l] = -1;
            for (int k = 0; k <= pathLength[l] && at[l] < 0 && l != moves.leafOf(d); k++) {
                int sw = k == 0 ? index.leaves()[l] : index.groupNeighbour(paths[l][k - 1]);
                at[l] = member[sw] ? k : -1;
            }
        }
        Arrays.stream(members).forEach(s -> member[s] = false);
        for (int p = 0; p < sender.length; p++) {
            int l = sender[p][j];
            if (l >= 0 && at[l] >= 0) {
                affected[n++] = p;
            }
        }
        long[][] scored = new long[alternatives.length][];
        for (int a = 0; a < alternatives.length; a++) {
            int tailLength = moves.onward(alternatives[a], d, tail);
            long score = 0;
            for (int i = 0; i < n; i++) {
                int p = affected[i];
                int l = sender[p][j];
                int newLength = newPath(l, alternatives[a], tailLength);
                score += delta(p, paths[l], at[l], pathLength[l], newPath, newLength);
            }
            scored[a] = new long[] {score, alternatives[a]};
        }
        Arrays.sort(scored, (x, y) -> Long.compare(x[0], y[0])); // stable: ties keep the port order
        for (long[] candidate : scored) {
            int next = (int) candidate[1];
            if (candidate[0] >= (strict ? -MAX_WEIGHT / 2 : 0)) {
                return false;
            }
            if (moves.shiftAllows(members, d, next) && moves.bottleneckAfter(members, d, next) <= allToAllCap) {
                int tailLength = moves.onward(next, d, tail);
                for (int i = 0; i < n; i++) {
                    int p = affected[i];
                    int l = sender[p][j];
                    int newLength = newPath(l, next, tailLength);
                    apply(p, paths[l], at[l], pathLength[l], newPath, newLength);
                }
                moves.apply(members, d, next);
                pathsTo(d);
                return true;
            }
        }
        return false;
    }

    /** Leaf {@code l}'s new links from its member on: the member's link to {@code next}, then {@link #tail}. */
    private int newPath(int l, int next, int tailLength) {
        int sw = at[l] == 0 ? index.leaves()[l] : index.groupNeighbour(paths[l][at[l] - 1]);
        newPath[0] = moves.groupTo(sw, next);
        System.arraycopy(tail, 0, newPath, 1, tailLength);
        return tailLength + 1;
    }

    /** The change of the score in permutation {@code p} if its route left {@code old[from..to)} for {@code now}. */
    private long delta(int p, int[] old, int from, int to, int[] now, int nowLength) {
        byte[] load = loads[p];
        int max = peak[p];
        int upAtMax = 0;
        int upBelow = 0;
        int upTwoBelow = 0;
        int downAtMax = 0;
        int downBelow = 0;
        for (int i = 0; i < nowLength; i++) {
            if (!contains(old, from, to, now[i])) {
                int v = load[now[i]];
                upAtMax += v == max ? 1 : 0;
                upBelow += v == max - 1 ? 1 : 0;
                upTwoBelow += v == max - 2 ? 1 : 0;
            }
        }
        for (int i = from; i < to; i++) {
            if (!contains(now, 0, nowLength, old[i])) {
                int v = load[old[i]];
                downAtMax += v == max ? 1 : 0;
                downBelow += v == max - 1 ? 1 : 0;
            }
        }
        int[] h = histogram[p];
        if (upAtMax > 0) {
            return MAX_WEIGHT + upAtMax - h[max];
        }
        int atMax = h[max] - downAtMax + upBelow;
        if (atMax > 0) {
            return atMax - h[max];
        }
        return -MAX_WEIGHT + (h[max - 1] - downBelow + downAtMax + upTwoBelow) - h[max];
    }

    private void apply(int p, int[] old, int from, int to, int[] now, int nowLength) {
        byte[] load = loads[p];
        int[] h = histogram[p];
        for (int i = 0; i < nowLength; i++) {
            if (!contains(old, from, to, now[i])) {
                h[load[now[i]]]--;
                h[++load[now[i]]]++;
            }
        }
        for (int i = from; i < to; i++) {
            if (!contains(now, 0, nowLength, old[i])) {
                h[load[old[i]]]--;
                h[--load[old[i]]]++;
            }
        }
        peak[p] = topOf(h);
    }

    private static int topOf(int[] h) {
        int top = h.length - 1;
        while (top > 0 && h[top] == 0) {
            top--;
        }
        if (top >= LOADS - 2) {
            throw new IllegalStateException("a permutation's load above " + (LOADS - 2));
        }
        return top;
    }

    /** Fills {@link #paths} with every leaf's links to {@code d} (none from {@code d}'s own leaf). */
    private void pathsTo(int d) {
        int own = moves.leafOf(d);
        for (int l = 0; l < paths.length; l++) {
            pathLength[l] = l == own ? 0 : moves.onward(index.leaves()[l], d, paths[l]);
        }
    }

    private static boolean contains(int[] a, int from, int to, int v) {
        for (int i = from; i < to; i++) {
            if (a[i] == v) {
                return true;
            }
        }
        return false;
    }
}
