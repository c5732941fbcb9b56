package org.fabricmanager.daemon.routing;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;

/**
 * Follows the forwarding tables from the source node's leaf, hop by hop, until the route reaches the
 * destination node, dead-ends, or comes back to a switch it already crossed. Tables and index must
 * come from the same fabric snapshot (rows in the index's switch order).
 */
public final class RouteTracer {
    private RouteTracer() {
    }

    /** How a traced route ends. */
    public enum Outcome {
        DELIVERED, NO_ROUTE, UNCONNECTED_PORT, WRONG_NODE, LOOP, SOURCE_DETACHED
    }

    /** One switch crossed and the port it sends the packet out of. */
    public record Hop(int switchId, long switchGuid, int outPort) {
    }

    /** A traced route. */
    public record Route(int source, int destination, List<Hop> hops, Outcome outcome) {
        public Route {
            hops = List.copyOf(hops);
        }
    }

    /**
     * Traces {@code source} to {@code destination} (destination indices).
     *
     * @throws IllegalArgumentException when an index names no node
     */
    public static Route trace(FabricIndex index, ForwardingTables tables, int source, int destination) {
        int srcPos = node(index, source, "source");
        int dstPos = node(index, destination, "destination");
        List<Hop> hops = new ArrayList<>();
        int s = index.nodeLeaf(srcPos);
        if (s == FabricIndex.NONE) {
            return new Route(source, destination, hops, Outcome.SOURCE_DETACHED);
        }
        boolean[] seen = new boolean[index.switchCount()];
        while (true) {
            seen[s] = true;
            int port = tables.port(s, destination);
            hops.add(new Hop(s, index.switchGuid(s), port));
            if (port == ForwardingTables.NO_ROUTE) {
                return new Route(source, destination, hops, Outcome.NO_ROUTE);
            }
            if (port < 1 || port > index.switchPorts(s)) {
                return new Route(source, destination, hops, Outcome.UNCONNECTED_PORT);
            }
            int node = index.peerNodes(s)[port];
            if (node != FabricIndex.NONE) {
                return new Route(source, destination, hops, node == dstPos ? Outcome.DELIVERED : Outcome.WRONG_NODE);
            }
            int next = index.peerSwitches(s)[port];
            if (next == FabricIndex.NONE) {
                return new Route(source, destination, hops, Outcome.UNCONNECTED_PORT);
            }
            if (seen[next]) {
                return new Route(source, destination, hops, Outcome.LOOP);
            }
            s = next;
        }
    }

    private static int node(FabricIndex index, int d, String role) {
        int pos = d >= 0 && d < index.destinationCount() ? index.nodeByDestination(d) : FabricIndex.NONE;
        if (pos == FabricIndex.NONE) {
            throw new IllegalArgumentException("no node has destination index " + d + " (" + role + ")");
        }
        return pos;
    }
}
