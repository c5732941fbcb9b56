package org.fabricmanager.daemon.api;

import java.util.List;

/**
 * The faults the daemon currently knows ({@code GET /api/v1/faults}): switches the ring declared
 * dead, links down that the first routed fabric had, quarantined (flapping) links, and reaction
 * counts.
 *
 * @param detectorEnabled   whether the ring failure detector runs
 * @param ringEpoch         the ring configuration's generation (0: none yet)
 * @param ringMembers       members including the daemon
 * @param switches          switches declared dead by the ring and not rejoined
 * @param links             links down (each end that reports it)
 * @param quarantined       links kept down because they flap
 * @param reactions         fault reactions completed since start
 * @param pendingEvents     events of the reaction in progress (0: none)
 * @param ringStarting      answers to the ring's configuration still awaited
 * @param ringUnconfirmed   answers that did not come within the wait and have not come since: watched, but
 *                          their member may still be starting (the ring runs when this and ringStarting are 0)
 * @param unwatched         ring members whose agent said it runs no member (no detector, or it could not start)
 * @param nodesUnreachable  end nodes no route reaches any more (leaf dead, node link down, leaf cut off)
 * @param unreachableNodes  the first of them (at most 256), in the order they were cut off
 * @param drained           switches and cables an operator drained for maintenance (routed around, not faults, but
 *                          out of service all the same), in the order drained
 */
public record FaultReport(boolean detectorEnabled, long ringEpoch, int ringMembers, List<SwitchFault> switches,
                          List<LinkFault> links, List<Quarantine> quarantined, long reactions, int pendingEvents,
                          int ringStarting, int ringUnconfirmed, List<Unwatched> unwatched, int nodesUnreachable,
                          List<Node> unreachableNodes, List<Views.Drained> drained) {

    /** An end node: its GUID, its name as the fabric reports it, its destination index. */
    public record Node(String guid, String name, int index) {
    }

    /** A switch the ring cannot watch; its faults come from its session and its neighbours' PORT_STATUS. */
    public record Unwatched(String guid, String name, String reason) {
    }

    /** A switch the ring declared dead; {@code sessionAlive} when its management session still looked up. */
    public record SwitchFault(String guid, String name, String source, long sinceMillis, boolean sessionAlive) {
    }

    /**
     * A port that is down while the first routed fabric had a link there; {@code peerName} names the switch or end
     * node at its other end ({@code peerNode}: an end node, whose destination index is {@code peerIndex}, else -1).
     */
    public record LinkFault(String guid, String name, int port, String peerGuid, boolean quarantined, String peerName,
                            boolean peerNode, int peerIndex) {
    }

    /** A flapping link kept down until it has been stable for the quarantine time. */
    public record Quarantine(String guid, int port, int flaps, long sinceMillis, Long stableUpSinceMillis) {
    }
}
