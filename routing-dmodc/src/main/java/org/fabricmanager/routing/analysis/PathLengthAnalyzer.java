package org.fabricmanager.routing.analysis;

import java.util.List;
import java.util.function.BooleanSupplier;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Route lengths of forwarding tables: the longest and the mean route between attached nodes, in
 * switch-to-switch links. Per destination, the routes of all sources follow the same entries, so
 * each switch's distance to the destination is settled once (following its entry until a switch
 * already settled) and every leaf's route length is read off with its number of sending nodes:
 * O(destinations x switches), like the deadlock check. Results do not depend on the thread count.
 */
public final class PathLengthAnalyzer {
    private static final Logger LOG = LoggerFactory.getLogger(PathLengthAnalyzer.class);
    private static final int FAILED = -1;
    private static final int ON_PATH = -2;

    private final RoutedFabric routed;
    private final int threads;
    private final BooleanSupplier abandon;

    public PathLengthAnalyzer(RoutedFabric routed, int threads) {
        this(routed, threads, () -> false);
    }

    /** An analyzer that gives up at the next block of destinations once {@code abandon} is true. */
    public PathLengthAnalyzer(RoutedFabric routed, int threads, BooleanSupplier abandon) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        this.routed = routed;
        this.threads = threads;
        this.abandon = abandon;
    }

    /** Measures every route between attached nodes. */
    public PathLengths analyze() {
        long t0 = System.nanoTime();
        List<Worker> workers = DestinationWorker.runAll(routed, threads, "path-lengths", abandon, Worker::new);
        int max = -1;
        long routedPairs = 0;
        long unrouted = 0;
        long total = 0;
        for (Worker w : workers) {
            max = Math.max(max, w.max);
            routedPairs += w.routed;
            unrouted += w.unrouted;
            total += w.total;
        }
        PathLengths result = new PathLengths(max, routedPairs == 0 ? 0.0 : (double) total / routedPairs, routedPairs,
                unrouted);
        LOG.debug("path lengths: max {}, mean {}, {} routed and {} unrouted pairs, in {} ms", result.max(),
                result.mean(), routedPairs, unrouted, (System.nanoTime() - t0) / 1_000_000);
        return result;
    }

    /** Measures the destinations of the blocks it is given. */
    private final class Worker extends DestinationWorker {
        int max = -1;
        long routed;
        long unrouted;
        long total;
        private final int[] mark = new int[PathLengthAnalyzer.this.routed.index().switchCount()];
        private final int[] distance = new int[mark.length];
        private final int[] path = new int[mark.length];

        Worker() {
            super(PathLengthAnalyzer.this.routed);
        }

        @Override
        void destination(int d, int j, int target) {
            RoutedFabric r = PathLengthAnalyzer.this.routed;
            FabricIndex index = r.index();
            int pos = index.nodeByDestination(d);
            int stamp = d + 1;
            for (int leaf : index.leaves()) {
                int sources = r.attachedOn(leaf) - (leaf == target ? 1 : 0);
                if (sources == 0) {
                    continue;
                }
                int length = walk(index, leaf, j, pos, stamp);
                if (length == FAILED) {
                    unrouted += sources;
                } else {
                    routed += sources;
                    total += (long) length * sources;
                    max = Math.max(max, length);
                }
            }
        }

        /** Links from {@code from} to node {@code pos}, or {@link #FAILED}; settles every switch on the way. */
        private int walk(FabricIndex index, int from, int j, int pos, int stamp) {
            int len = 0;
            int s = from;
            int last; // distance of the last switch of the walk
            while (true) {
                if (mark[s] == stamp) {
                    int settled = distance[s] == ON_PATH ? FAILED : distance[s];
                    if (len == 0) {
                        return settled;
                    }
                    last = settled == FAILED ? FAILED : settled + 1;
                    break;
                }
                mark[s] = stamp;
                distance[s] = ON_PATH;
                path[len++] = s;
                int port = block.port(s, j);
                if (port == ForwardingTables.NO_ROUTE || port > index.switchPorts(s)) {
                    last = FAILED;
                    break;
                }
                int node = index.peerNodes(s)[port];
                if (node != FabricIndex.NONE) {
                    last = node == index.basePosition(pos) ? 0 : FAILED;
                    break;
                }
                int next = index.peerSwitches(s)[port];
                if (next == FabricIndex.NONE) {
                    last = FAILED;
                    break;
                }
                s = next;
            }
            for (int i = len - 1; i >= 0; i--) {
                distance[path[i]] = last == FAILED ? FAILED : last + (len - 1 - i);
            }
            return distance[path[0]];
        }
    }
}
