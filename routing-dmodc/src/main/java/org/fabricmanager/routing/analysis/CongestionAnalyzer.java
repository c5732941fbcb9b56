package org.fabricmanager.routing.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Congestion risk of forwarding tables: how many routes of a traffic pattern cross each directed
 * link, and the maximum. Only switch-to-switch links are counted: under a permutation every node
 * link carries exactly one route and under all-to-all exactly N-1, whatever the routing, so
 * counting them would only hide the differences between engines. Routes that dead-end or loop
 * are not counted on any link; they are reported as unrouted pairs.
 *
 * <p>Permutations are evaluated route by route, O(N x path length) per permutation with
 * primitive per-thread counters that are reset lazily (a stamp per link), and spread over
 * threads permutation by permutation. All-to-all is computed per destination: the routes of
 * every source to one destination form a tree over switches, so each link of the tree carries as
 * many routes as there are sources below it; accumulating those subtree sizes from the leaves
 * towards the destination costs O(switches) per destination instead of O(N x path length).
 * Results do not depend on the number of threads.
 *
 * <p>With an LMC a pair of the pattern is one flow to each LID of its destination (2^lmc flows), and the loads count
 * flows: the destinations' LIDs being destinations of their own, all-to-all counts them as it counts nodes.
 */
public final class CongestionAnalyzer {
    private static final Logger LOG = LoggerFactory.getLogger(CongestionAnalyzer.class);
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private static final int ON_PATH = 1;
    private static final int DELIVERED = 2;
    private static final int BROKEN = 3;

    private final RoutedFabric routed;
    private final int threads;
    private final BooleanSupplier abandon;

    public CongestionAnalyzer(RoutedFabric routed, int threads) {
        this(routed, threads, () -> false);
    }

    /**
     * An analyzer that gives up (throws {@link org.fabricmanager.routing.AbandonedException}) at the next
     * permutation or block of destinations once {@code abandon} is true.
     */
    public CongestionAnalyzer(RoutedFabric routed, int threads, BooleanSupplier abandon) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        this.routed = routed;
        this.threads = threads;
        this.abandon = abandon;
    }

    /** Evaluates one pattern. */
    public PatternCongestion analyze(TrafficPattern pattern) {
        long t0 = System.nanoTime();
        PatternCongestion result;
        if (pattern instanceof TrafficPattern.Shift) {
            result = shift();
        } else if (pattern instanceof TrafficPattern.RandomPermutations r) {
            result = random(r);
        } else {
            result = allToAll();
        }
        LOG.debug("congestion under {}: max {}, mean {}, {} unrouted pairs, in {} ms", pattern, result.max(),
                result.mean(), result.unroutedPairs(), (System.nanoTime() - t0) / 1_000_000);
        return result;
    }

    /**
     * Evaluates one pattern and keeps what each directed link carries: for the permutation patterns the
     * most routes the link carries in any one permutation (its own worst case, so the heat of a link and
     * the pattern's {@code max} are the same measure), for all-to-all the routes crossing it. Indexed by
     * {@link DirectedLinks} id; links to nodes and unplugged ports stay 0.
     */
    public LinkLoads linkLoads(TrafficPattern pattern) {
        if (pattern instanceof TrafficPattern.AllToAll) {
            AllToAll a = allToAllCounts();
            long max = 0;
            for (long v : a.loads) {
                max = Math.max(max, v);
            }
            return new LinkLoads(new PatternCongestion(pattern, 1, max, max, a.unrouted), a.loads);
        }
        List<PermutationWorker> workers = new ArrayList<>();
        PatternCongestion summary = pattern instanceof TrafficPattern.RandomPermutations r ? random(r, workers)
                : shift(workers);
        long[] loads = new long[routed.links().count()];
        for (PermutationWorker w : workers) {
            for (int l = 0; l < loads.length; l++) {
                loads[l] = Math.max(loads[l], w.peak[l]);
            }
        }
        return new LinkLoads(summary, loads);
    }

    /** Runs permutations {@code 0..count-1} over the analyzer's threads; returns the workers. */
    private List<PermutationWorker> permutations(int count, Supplier<PermutationWorker> factory) {
        try (RoutingPool pool = new RoutingPool(threads, "congestion")) {
            return pool.forEach(count, factory, abandon);
        }
    }

    // ---- permutations -----------------------------------------------------------------------

    private PatternCongestion shift() {
        return shift(null);
    }

    private PatternCongestion shift(List<PermutationWorker> keep) {
        int n = routed.attachedCount();
        int[] maxima = new int[Math.max(0, n - 1)];
        List<PermutationWorker> workers = permutations(maxima.length, () -> new PermutationWorker(maxima, keep != null) {
            @Override
            int target(int item, int i) {
                int t = i + item + 1;
                return t >= n ? t - n : t;
            }
        });
        if (keep != null) {
            keep.addAll(workers);
        }
        return summary(new TrafficPattern.Shift(), maxima, workers);
    }

    private PatternCongestion random(TrafficPattern.RandomPermutations pattern) {
        return random(pattern, null);
    }

    private PatternCongestion random(TrafficPattern.RandomPermutations pattern, List<PermutationWorker> keep) {
        int n = routed.attachedCount();
        int[] maxima = new int[pattern.count()];
        List<PermutationWorker> workers = permutations(maxima.length, () -> new PermutationWorker(maxima, keep != null) {
            private final int[] permutation = new int[n];
            private int current = -1;

            @Override
            int target(int item, int i) {
                if (current != item) {
                    fill(permutation, pattern.seed(), item);
                    current = item;
                }
                return permutation[i];
            }
        });
        if (keep != null) {
            keep.addAll(workers);
        }
        return summary(pattern, maxima, workers);
    }

    /**
     * Permutation {@code r} of a seeded pattern: a Fisher-Yates shuffle of the identity with a
     * {@link Random} seeded from ({@code seed}, {@code r}); Random's algorithm is fixed by the Java
     * specification, so a seed names the same permutations on every JVM and for any thread count.
     */
    static void fill(int[] permutation, long seed, int r) {
        Random random = new Random(seed * GOLDEN + r);
        for (int i = 0; i < permutation.length; i++) {
            permutation[i] = i;
        }
        for (int i = permutation.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int tmp = permutation[i];
            permutation[i] = permutation[j];
            permutation[j] = tmp;
        }
    }

    private static PatternCongestion summary(TrafficPattern pattern, int[] maxima, List<PermutationWorker> workers) {
        long max = 0;
        long sum = 0;
        for (int m : maxima) {
            max = Math.max(max, m);
            sum += m;
        }
        long unrouted = 0;
        for (PermutationWorker w : workers) {
            unrouted += w.unrouted;
        }
        double mean = maxima.length == 0 ? 0.0 : (double) sum / maxima.length;
        return new PatternCongestion(pattern, maxima.length, max, mean, unrouted);
    }

    /** Routes one permutation per item (node i of the pattern sends to node target(item, i)). */
    private abstract class PermutationWorker implements IntConsumer {
        private final int[] maxima;
        private final int[] count = new int[routed.links().count()];
        private final int[] stamp = new int[routed.links().count()];
        private final int[] path = new int[routed.index().switchCount() + 1];
        /** Per link, the most routes it carried in one permutation; null unless asked for (only {@link #linkLoads} pays). */
        final int[] peak;
        long unrouted;

        PermutationWorker(int[] maxima, boolean keepPeaks) {
            this.maxima = maxima;
            this.peak = keepPeaks ? new int[routed.links().count()] : null;
        }

        abstract int target(int item, int i);

        @Override
        public void accept(int item) {
            int mark = item + 1;
            int max = 0;
            int[] nodes = routed.attachedDestinationArray();
            int lids = routed.lids();
            for (int i = 0; i < nodes.length; i++) {
                int t = target(item, i);
                if (t == i) {
                    continue;
                }
                for (int b = 0; b < lids; b++) {
                    int hops = walk(nodes[i], nodes[t] + b, path);
                    if (hops < 0) {
                        unrouted++;
                        continue;
                    }
                    max = Math.max(max, count(hops, mark));
                }
            }
            maxima[item] = max;
        }

        /** Counts a route of {@code hops} links (in {@code path}) in the permutation marked {@code mark}; its busiest. */
        private int count(int hops, int mark) {
            int max = 0;
            for (int h = 0; h < hops; h++) {
                int l = path[h];
                if (stamp[l] != mark) {
                    stamp[l] = mark;
                    count[l] = 0;
                }
                int c = ++count[l];
                max = Math.max(max, c);
                if (peak != null && c > peak[l]) {
                    peak[l] = c;
                }
            }
            return max;
        }
    }

    /**
     * Follows the tables from {@code src}'s leaf to {@code dst}, writing the switch-to-switch
     * links crossed into {@code path}; returns their number, or -1 when the route dead-ends or loops.
     */
    int walk(int src, int dst, int[] path) {
        FabricIndex index = routed.index();
        ForwardingTables tables = routed.tables();
        DirectedLinks links = routed.links();
        int[] linkStart = links.startArray();
        int[] peerSwitch = links.peerSwitchArray();
        int[] peerNode = links.peerNodeArray();
        int dstPos = index.basePosition(index.nodeByDestination(dst)); // a leaf port names the node's base LID
        int s = routed.leafOf(src);
        int hops = 0;
        while (true) {
            int port = tables.port(s, dst);
            if (port == ForwardingTables.NO_ROUTE || port > index.switchPorts(s)) {
                return -1;
            }
            int l = linkStart[s] + port - 1;
            int node = peerNode[l];
            if (node != FabricIndex.NONE) {
                return node == dstPos ? hops : -1;
            }
            int t = peerSwitch[l];
            if (t == FabricIndex.NONE || hops == path.length - 1) {
                return -1; // a loop-free route crosses each switch at most once
            }
            path[hops++] = l;
            s = t;
        }
    }

    // ---- all-to-all ---------------------------------------------------------------------------

    private PatternCongestion allToAll() {
        AllToAll result = allToAllCounts();
        long max = 0;
        for (long v : result.loads) {
            max = Math.max(max, v);
        }
        return new PatternCongestion(new TrafficPattern.AllToAll(), 1, max, max, result.unrouted);
    }

    /**
     * Routes per directed link (indexed by {@link DirectedLinks} id) under all-to-all traffic
     * between attached nodes; links to nodes and unplugged ports stay 0.
     */
    public long[] allToAllLoads() {
        return allToAllCounts().loads;
    }

    private record AllToAll(long[] loads, long unrouted) {
    }

    private AllToAll allToAllCounts() {
        List<TreeWorker> workers = DestinationWorker.runAll(routed, threads, "congestion", abandon, TreeWorker::new);
        long[] loads = workers.get(0).loads;
        long unrouted = workers.get(0).unrouted;
        for (int w = 1; w < workers.size(); w++) {
            long[] other = workers.get(w).loads;
            for (int l = 0; l < loads.length; l++) {
                loads[l] += other[l];
            }
            unrouted += workers.get(w).unrouted;
        }
        return new AllToAll(loads, unrouted);
    }

    /** Accumulates the all-to-all loads of the destinations of the blocks it is given. */
    private final class TreeWorker extends DestinationWorker {
        final long[] loads = new long[routed.links().count()];
        long unrouted;
        private final int switches = routed.index().switchCount();
        private final int[] seen = new int[switches];
        private final byte[] state = new byte[switches];
        private final int[] nextLink = new int[switches];
        private final long[] weight = new long[switches];
        private final int[] pending = new int[switches];
        private final int[] path = new int[switches];
        private final int[] delivered = new int[switches];
        private final int[] queue = new int[switches];
        private int deliveredCount;

        TreeWorker() {
            super(routed);
        }

        @Override
        void destination(int d, int j, int dLeaf) {
            int[] attached = routed.attachedPerSwitchArray();
            int dPos = routed.index().basePosition(routed.index().nodeByDestination(d));
            int mark = d + 1;
            deliveredCount = 0;
            for (int leaf : routed.index().leaves()) {
                int sources = attached[leaf] - (leaf == dLeaf ? 1 : 0);
                if (sources == 0) {
                    continue;
                }
                if (resolve(leaf, j, dPos, mark) == BROKEN) {
                    unrouted += sources;
                }
            }
            // Kahn's order over the delivering in-tree: a switch passes its subtree on once all its
            // upstream switches have passed theirs.
            int[] peerSwitch = routed.links().peerSwitchArray();
            for (int i = 0; i < deliveredCount; i++) {
                int s = delivered[i];
                weight[s] = attached[s] - (s == dLeaf ? 1 : 0);
                pending[s] = 0;
            }
            for (int i = 0; i < deliveredCount; i++) {
                int l = nextLink[delivered[i]];
                if (l >= 0) {
                    pending[peerSwitch[l]]++;
                }
            }
            int head = 0;
            int tail = 0;
            for (int i = 0; i < deliveredCount; i++) {
                if (pending[delivered[i]] == 0) {
                    queue[tail++] = delivered[i];
                }
            }
            while (head < tail) {
                int s = queue[head++];
                int l = nextLink[s];
                if (l < 0) {
                    continue;
                }
                int t = peerSwitch[l];
                loads[l] += weight[s];
                weight[t] += weight[s];
                if (--pending[t] == 0) {
                    queue[tail++] = t;
                }
            }
        }

        /** Resolves the fate of routes leaving {@code from}, memoised per destination. */
        private int resolve(int from, int j, int dPos, int mark) {
            FabricIndex index = routed.index();
            DirectedLinks links = routed.links();
            int[] linkStart = links.startArray();
            int[] peerSwitch = links.peerSwitchArray();
            int[] peerNode = links.peerNodeArray();
            int top = 0;
            int s = from;
            int outcome;
            while (true) {
                if (seen[s] == mark) {
                    outcome = state[s] == ON_PATH ? BROKEN : state[s];
                    break;
                }
                seen[s] = mark;
                state[s] = ON_PATH;
                path[top++] = s;
                int port = block.port(s, j);
                if (port == ForwardingTables.NO_ROUTE || port > index.switchPorts(s)) {
                    outcome = BROKEN;
                    break;
                }
                int l = linkStart[s] + port - 1;
                if (peerNode[l] != FabricIndex.NONE) {
                    nextLink[s] = -1;
                    outcome = peerNode[l] == dPos ? DELIVERED : BROKEN;
                    break;
                }
                if (peerSwitch[l] == FabricIndex.NONE) {
                    outcome = BROKEN;
                    break;
                }
                nextLink[s] = l;
                s = peerSwitch[l];
            }
            for (int i = 0; i < top; i++) {
                state[path[i]] = (byte) outcome;
                if (outcome == DELIVERED) {
                    delivered[deliveredCount++] = path[i];
                }
            }
            return outcome;
        }
    }
}
