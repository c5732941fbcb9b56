package org.fabricmanager.routing.analysis;

import java.util.List;

/**
 * The route from one node to another as the forwarding tables send it: the switches crossed with
 * the output port each one uses, and how the route ends. For a route that fails, the last hop is
 * where it fails (its port is 255, leads nowhere or to another node, or leads back into the path).
 *
 * @param source      destination index of the sending node
 * @param destination destination index of the receiving node
 * @param hops        switches in the order crossed, starting at the source's leaf
 * @param outcome     how the route ends
 * @param loopStart   for {@link Outcome#LOOP}, the position in {@code hops} of the switch the last
 *                    hop leads back to; otherwise -1
 */
public record Trace(int source, int destination, List<Hop> hops, Outcome outcome, int loopStart) {

    /** One switch crossed: its dense id, GUID and the output port its table gives. */
    public record Hop(int switchId, long switchGuid, int outPort) {
    }

    /** How a route ends. */
    public enum Outcome {
        /** The last hop's port leads to the destination node. */
        DELIVERED,
        /** Dead end: the last hop's table has no route (255) for the destination. */
        NO_ROUTE,
        /** Dead end: the last hop's port has no cable, or the switch has no such port. */
        UNCONNECTED_PORT,
        /** Dead end: the last hop's port leads to a node other than the destination. */
        WRONG_NODE,
        /** The last hop leads back to a switch already crossed: the packet would circle forever. */
        LOOP,
        /** The source node has no link to a switch, so nothing leaves it. */
        SOURCE_DETACHED;

        /** True for the three kinds of dead end. */
        public boolean isDeadEnd() {
            return this == NO_ROUTE || this == UNCONNECTED_PORT || this == WRONG_NODE;
        }
    }

    public Trace {
        hops = List.copyOf(hops);
    }

    public boolean delivered() {
        return outcome == Outcome.DELIVERED;
    }
}
