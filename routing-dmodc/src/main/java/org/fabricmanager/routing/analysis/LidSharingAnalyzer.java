package org.fabricmanager.routing.analysis;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.topology.FabricIndex;

/**
 * Measures {@link LidSharing}: for each attached node and each other leaf with attached nodes, follows the tables
 * from the leaf to each LID of the node and counts the flows on every switch-to-switch link crossed (per-pair counts
 * reset lazily by a stamp). O(leaves x nodes x 2^lmc x path length), spread over threads node by node; the result
 * does not depend on the number of threads.
 */
public final class LidSharingAnalyzer {
    /** What a walk returns for a flow that dead-ends or loops. */
    private static final int BROKEN = -2;
    /** What a walk returns for a flow that crosses no switch-to-switch link. */
    private static final int NO_LINK = -1;

    private final RoutedFabric routed;
    private final int threads;
    private final BooleanSupplier abandon;

    public LidSharingAnalyzer(RoutedFabric routed, int threads) {
        this(routed, threads, () -> false);
    }

    /** An analyzer that gives up ({@link org.fabricmanager.routing.AbandonedException}) once {@code abandon} is true. */
    public LidSharingAnalyzer(RoutedFabric routed, int threads, BooleanSupplier abandon) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        this.routed = routed;
        this.threads = threads;
        this.abandon = abandon;
    }

    public LidSharing analyze() {
        if (routed.lids() == 1) {
            return new LidSharing(1, 0, 0, 0, 0, 0);
        }
        List<Worker> workers;
        try (RoutingPool pool = new RoutingPool(threads, "lid-sharing")) {
            workers = pool.forEach(routed.attachedCount(), Worker::new, abandon);
        }
        long pairs = 0;
        long atLeaf = 0;
        long shared = 0;
        int max = 0;
        long unrouted = 0;
        for (Worker w : workers) {
            pairs += w.pairs;
            atLeaf += w.sharedAtLeaf;
            shared += w.shared;
            max = Math.max(max, w.maxShared);
            unrouted += w.unrouted;
        }
        return new LidSharing(routed.lids(), pairs, atLeaf, shared, max, unrouted);
    }

    /** The pairs of one destination node per item. */
    private final class Worker implements IntConsumer {
        private final int[] count = new int[routed.links().count()];
        private final int[] stamp = new int[routed.links().count()];
        private final int[] firstLink = new int[routed.lids()];
        private final int switches = routed.index().switchCount();
        private int mark;
        long pairs;
        long sharedAtLeaf;
        long shared;
        int maxShared;
        long unrouted;

        @Override
        public void accept(int item) {
            FabricIndex index = routed.index();
            int base = routed.attachedDestination(item);
            int dLeaf = routed.leafOf(base);
            for (int leaf : index.leaves()) {
                if (leaf != dLeaf && routed.attachedOn(leaf) > 0) {
                    pair(leaf, base);
                }
            }
        }

        private void pair(int leaf, int base) {
            mark++;
            int most = 0;
            boolean atLeaf = false;
            for (int b = 0; b < firstLink.length; b++) {
                int first = walk(leaf, base + b);
                if (first == BROKEN) {
                    unrouted++;
                    return;
                }
                for (int o = 0; o < b; o++) {
                    atLeaf |= first != NO_LINK && firstLink[o] == first;
                }
                firstLink[b] = first;
                most = Math.max(most, lastMost);
            }
            pairs++;
            sharedAtLeaf += atLeaf ? 1 : 0;
            shared += most > 1 ? 1 : 0;
            maxShared = Math.max(maxShared, most);
        }

        /** The most flows of the current pair on one link of the last walk. */
        private int lastMost;

        /** Counts the route from {@code from} to destination {@code d}; its first link, or {@link #BROKEN}. */
        private int walk(int from, int d) {
            FabricIndex index = routed.index();
            ForwardingTables tables = routed.tables();
            DirectedLinks links = routed.links();
            int[] linkStart = links.startArray();
            int[] peerSwitch = links.peerSwitchArray();
            int[] peerNode = links.peerNodeArray();
            int dPos = index.basePosition(index.nodeByDestination(d));
            int s = from;
            int first = NO_LINK;
            lastMost = 0;
            for (int hops = 0; hops <= switches; hops++) {
                int port = tables.port(s, d);
                if (port == ForwardingTables.NO_ROUTE || port > index.switchPorts(s)) {
                    return BROKEN;
                }
                int l = linkStart[s] + port - 1;
                if (peerNode[l] != FabricIndex.NONE) {
                    return peerNode[l] == dPos ? first : BROKEN;
                }
                if (peerSwitch[l] == FabricIndex.NONE) {
                    return BROKEN;
                }
                first = hops == 0 ? l : first;
                if (stamp[l] != mark) {
                    stamp[l] = mark;
                    count[l] = 0;
                }
                lastMost = Math.max(lastMost, ++count[l]);
                s = peerSwitch[l];
            }
            return BROKEN; // longer than any loop-free route: a loop
        }
    }
}
