package org.fabricmanager.routing.baseline;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseClock;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OpenSM's SSSP balance (the routing of its {@code sssp} and {@code dfsssp} engines, Domke et al.), written
 * here as a baseline for the load balance of the other engines, so that it can be measured without OpenSM.
 * Every switch-to-switch link (each parallel port separately) starts with weight 1. Destinations are routed
 * one at a time in destination-index order: a shortest-path tree towards the destination's leaf under the
 * current weights (Dijkstra over the reversed links, ties to the first found, switches popped by lowest id),
 * then every link of the tree gets as much added to its weight as there are end nodes whose route to that
 * destination crosses it. Later destinations therefore avoid the links earlier ones loaded, which is what
 * gives dfsssp its all-to-all balance.
 *
 * <p>Routes are shortest under the weights, not always minimal in hops, and nothing here breaks credit
 * loops: dfsssp's deadlock freedom comes from spreading the paths over virtual lanes, which this baseline
 * does not do (it is for the balance only; {@code quality} reports its deadlock check like any engine's).
 * The work is sequential by nature (each tree depends on the weights of the ones before), O(destinations ×
 * links × log switches): seconds at 4,096 nodes, too slow for 65,536. Phases: {@code routes}, {@code validity}.
 */
public final class SsspEngine implements RoutingEngine {
    /** The name the CLI and configuration use. */
    public static final String NAME = "sssp";
    private static final Logger LOG = LoggerFactory.getLogger(SsspEngine.class);
    /** Bits of a heap key that hold the switch id; the rest holds the distance. */
    private static final int ID_BITS = 24;

    @Override
    public String name() {
        return NAME;
    }

    /** Offline only: minutes at 65,536 nodes and no repair path (docs/routing.md). */
    @Override
    public boolean routesForDaemon() {
        return false;
    }

    @Override
    public RoutingResult route(FabricIndex index) {
        if (index.switchCount() >= 1 << ID_BITS) {
            throw new IllegalArgumentException("sssp handles fewer than " + (1 << ID_BITS) + " switches");
        }
        PhaseClock clock = new PhaseClock();
        Trees trees = new Trees(index);
        byte[][] rows = new byte[index.switchCount()][index.destinationCount()];
        for (byte[] row : rows) {
            Arrays.fill(row, (byte) ForwardingTables.NO_ROUTE);
        }
        int leaves = index.leafCount();
        boolean[][] reach = new boolean[leaves][];
        int[] nodes = index.leafNodeArray();
        for (int d = 0; d < index.destinationCount(); d++) {
            int pos = index.nodeByDestination(d);
            if (pos == FabricIndex.NONE || index.nodeLeaf(pos) == FabricIndex.NONE) {
                continue;
            }
            int leaf = index.nodeLeaf(pos);
            trees.route(leaf, d, index.nodeLeafPort(pos), rows);
            int k = index.leafNumber(leaf);
            if (reach[k] == null) {
                reach[k] = trees.reachedLeaves();
            }
        }
        long[] guids = new long[index.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = index.switchGuid(s);
        }
        ForwardingTables tables = ForwardingTables.ofRows(guids, rows, index.destinationCount());
        clock.lap("routes");
        // every leaf has a node, so a tree of its own (null only if none of its nodes has a destination index)
        Validity validity = LeafPairs.validity(index, (a, b) -> reach[b] == null || reach[b][a]);
        clock.lap("validity");
        PhaseTimings timings = clock.timings();
        LOG.debug("sssp: {} switches, {} destinations ({} nodes) routed in {} ms, {} unreachable leaf pairs",
                index.switchCount(), index.destinationCount(), nodes.length, Math.round(timings.totalMillis()),
                validity.unreachablePairs());
        return new RoutingResult(NAME, tables, validity, timings);
    }

    /** The weights and the scratch of one routing: one shortest-path tree at a time. */
    private static final class Trees {
        private final FabricIndex index;
        private final int[] groupStart;
        private final int[] neighbours;
        private final int[] portStart;
        private final int[] ports;
        /** Per group g of switch v (neighbour u): the group of u that leads to v. */
        private final int[] reverse;
        /** Per port slot (index into {@link #ports}): the switch it leads to. */
        private final int[] slotNeighbour;
        /** Per port slot (index into {@link #ports}): the weight of that link in its direction of travel. */
        private final long[] weight;
        private final int[] hosts;
        private final long[] distance;
        private final int[] via;
        private final int[] settled;
        private final long[] flow;
        private long[] heap = new long[64];
        private int reached;

        Trees(FabricIndex index) {
            this.index = index;
            this.groupStart = index.groupStartArray();
            this.neighbours = index.groupNeighbourArray();
            this.portStart = index.groupPortStartArray();
            this.ports = index.groupPortArray();
            int switches = index.switchCount();
            this.reverse = new int[neighbours.length];
            Arrays.fill(reverse, FabricIndex.NONE);
            for (int v = 0; v < switches; v++) {
                for (int g = groupStart[v]; g < groupStart[v + 1]; g++) {
                    int u = neighbours[g];
                    for (int h = groupStart[u]; h < groupStart[u + 1]; h++) {
                        if (neighbours[h] == v) {
                            reverse[g] = h;
                            break;
                        }
                    }
                }
            }
            this.slotNeighbour = new int[ports.length];
            for (int g = 0; g < neighbours.length; g++) {
                Arrays.fill(slotNeighbour, portStart[g], portStart[g + 1], neighbours[g]);
            }
            this.weight = new long[ports.length];
            Arrays.fill(weight, 1);
            this.hosts = new int[switches];
            for (int k = 0; k < index.leafCount(); k++) {
                hosts[index.leaves()[k]] = index.leafNodeStart(k + 1) - index.leafNodeStart(k);
            }
            this.distance = new long[switches];
            this.via = new int[switches];
            this.settled = new int[switches];
            this.flow = new long[switches];
        }

        /**
         * Routes destination {@code d}, attached to {@code leaf} at {@code port}: its tree into {@code rows}
         * (entries of switches that cannot reach it stay unrouted), then the weights of the tree's links.
         */
        void route(int leaf, int d, int port, byte[][] rows) {
            Arrays.fill(distance, Long.MAX_VALUE);
            distance[leaf] = 0;
            via[leaf] = FabricIndex.NONE;
            int size = push(0, (long) leaf);
            reached = 0;
            while (size > 0) {
                long key = heap[0];
                size = pop(size);
                int v = (int) (key & ((1 << ID_BITS) - 1));
                long dv = key >>> ID_BITS;
                if (dv != distance[v]) {
                    continue; // a stale entry: v was reached again more cheaply
                }
                settled[reached++] = v;
                for (int g = groupStart[v]; g < groupStart[v + 1]; g++) {
                    int h = reverse[g];
                    if (h == FabricIndex.NONE) {
                        continue;
                    }
                    int u = neighbours[g];
                    for (int slot = portStart[h]; slot < portStart[h + 1]; slot++) {
                        long du = dv + weight[slot];
                        if (du < distance[u]) {
                            distance[u] = du;
                            via[u] = slot;
                            size = push(size, du << ID_BITS | u);
                        }
                    }
                }
            }
            rows[leaf][d] = (byte) port;
            // the tree's links carry the nodes below them: farthest switches first
            for (int i = reached - 1; i >= 0; i--) {
                int u = settled[i];
                long below = flow[u] + (u == leaf ? 0 : hosts[u]);
                flow[u] = 0;
                if (u == leaf) {
                    continue;
                }
                int slot = via[u];
                rows[u][d] = (byte) ports[slot];
                weight[slot] += below;
                flow[slotNeighbour[slot]] += below;
            }
        }

        /** The leaves the last tree reached, by leaf number. */
        boolean[] reachedLeaves() {
            boolean[] out = new boolean[index.leafCount()];
            for (int i = 0; i < reached; i++) {
                int k = index.leafNumber(settled[i]);
                if (k != FabricIndex.NONE) {
                    out[k] = true;
                }
            }
            return out;
        }

        private int push(int size, long key) {
            if (size == heap.length) {
                heap = Arrays.copyOf(heap, size * 2);
            }
            int i = size;
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (heap[parent] <= key) {
                    break;
                }
                heap[i] = heap[parent];
                i = parent;
            }
            heap[i] = key;
            return size + 1;
        }

        private int pop(int size) {
            long last = heap[--size];
            int i = 0;
            while (true) {
                int child = 2 * i + 1;
                if (child >= size) {
                    break;
                }
                if (child + 1 < size && heap[child + 1] < heap[child]) {
                    child++;
                }
                if (heap[child] >= last) {
                    break;
                }
                heap[i] = heap[child];
                i = child;
            }
            if (size > 0) {
                heap[i] = last;
            }
            return size;
        }
    }
}
