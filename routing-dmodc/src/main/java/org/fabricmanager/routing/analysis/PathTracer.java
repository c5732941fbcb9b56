package org.fabricmanager.routing.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;

/**
 * Follows the forwarding tables from a node's leaf switch, hop by hop, until the route reaches the
 * destination node, dead-ends or comes back to a switch it already crossed. Reuses one scratch
 * array, so an instance must not be shared between threads; tracing is O(path length) after the
 * first call.
 */
public final class PathTracer {
    private final RoutedFabric routed;
    private final int[] positionInPath;
    /** The switches {@link #delivers} crossed, to clear their marks. */
    private final int[] crossed;

    public PathTracer(RoutedFabric routed) {
        this.routed = routed;
        this.positionInPath = new int[routed.index().switchCount()];
        this.crossed = new int[routed.index().switchCount()];
        Arrays.fill(positionInPath, -1);
    }

    /**
     * Whether the route from node {@code source} to node {@code destination} reaches it: the same answer as
     * {@code trace(source, destination).delivered()}, without recording the hops. A validity check asks this
     * for every pair of leaves (about four million at 65,536 nodes), so it allocates nothing.
     *
     * @throws IllegalArgumentException when either index names no node, or both name the same node
     */
    public boolean delivers(int source, int destination) {
        FabricIndex index = routed.index();
        int dstPos = nodeAt(index, destination, "destination");
        int srcPos = sourceNode(index, source, dstPos);
        int s = index.nodeLeaf(srcPos);
        if (s == FabricIndex.NONE) {
            return false;
        }
        ForwardingTables tables = routed.tables();
        DirectedLinks links = routed.links();
        int n = 0;
        try {
            while (true) {
                int port = tables.port(s, destination);
                positionInPath[s] = n;
                crossed[n++] = s;
                if (port == ForwardingTables.NO_ROUTE) {
                    return false;
                }
                int link = links.id(s, port);
                if (link == FabricIndex.NONE) {
                    return false;
                }
                int node = links.peerNode(link);
                if (node != FabricIndex.NONE) {
                    return node == index.basePosition(dstPos); // the port names a node's base LID
                }
                int next = links.peerSwitch(link);
                if (next == FabricIndex.NONE || positionInPath[next] >= 0) {
                    return false;
                }
                s = next;
            }
        } finally {
            for (int i = 0; i < n; i++) {
                positionInPath[crossed[i]] = -1;
            }
        }
    }

    /**
     * Traces the route from node {@code source} to node {@code destination} (destination indices).
     *
     * @throws IllegalArgumentException when either index names no node, or both name the same node
     */
    public Trace trace(int source, int destination) {
        FabricIndex index = routed.index();
        int dstPos = nodeAt(index, destination, "destination");
        int srcPos = sourceNode(index, source, dstPos);
        List<Trace.Hop> hops = new ArrayList<>();
        int s = index.nodeLeaf(srcPos);
        if (s == FabricIndex.NONE) {
            return new Trace(source, destination, hops, Trace.Outcome.SOURCE_DETACHED, -1);
        }
        ForwardingTables tables = routed.tables();
        DirectedLinks links = routed.links();
        try {
            while (true) {
                int port = tables.port(s, destination);
                positionInPath[s] = hops.size();
                hops.add(new Trace.Hop(s, index.switchGuid(s), port));
                if (port == ForwardingTables.NO_ROUTE) {
                    return new Trace(source, destination, hops, Trace.Outcome.NO_ROUTE, -1);
                }
                int link = links.id(s, port);
                if (link == FabricIndex.NONE) {
                    return new Trace(source, destination, hops, Trace.Outcome.UNCONNECTED_PORT, -1);
                }
                int node = links.peerNode(link);
                if (node != FabricIndex.NONE) {
                    Trace.Outcome end = node == index.basePosition(dstPos) ? Trace.Outcome.DELIVERED : Trace.Outcome.WRONG_NODE;
                    return new Trace(source, destination, hops, end, -1);
                }
                int next = links.peerSwitch(link);
                if (next == FabricIndex.NONE) {
                    return new Trace(source, destination, hops, Trace.Outcome.UNCONNECTED_PORT, -1);
                }
                if (positionInPath[next] >= 0) {
                    return new Trace(source, destination, hops, Trace.Outcome.LOOP, positionInPath[next]);
                }
                s = next;
            }
        } finally {
            for (Trace.Hop hop : hops) {
                positionInPath[hop.switchId()] = -1;
            }
        }
    }

    /** The node of {@code source}, which must not be the destination's node {@code dstPos}. */
    private static int sourceNode(FabricIndex index, int source, int dstPos) {
        int srcPos = nodeAt(index, source, "source");
        if (srcPos == dstPos) {
            throw new IllegalArgumentException("source and destination are the same node (index " + source + ")");
        }
        return srcPos;
    }

    private static int nodeAt(FabricIndex index, int d, String role) {
        int pos = d >= 0 && d < index.destinationCount() ? index.nodeByDestination(d) : FabricIndex.NONE;
        if (pos == FabricIndex.NONE) {
            throw new IllegalArgumentException("no node has index " + d + " (the " + role + ")");
        }
        return pos;
    }
}
