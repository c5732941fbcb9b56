package org.fabricmanager.daemon.discovery;

import org.fabricmanager.topology.PortRef;

/**
 * A port report that did not become a link, and why. Kept in the discovery report for REST.
 *
 * @param at     the reporting switch port
 * @param detail what is wrong, naming the other end
 */
public record LinkIssue(Kind kind, PortRef at, String detail) {
    /** Why a claim was not taken. */
    public enum Kind {
        /** The claimed neighbour switch is not connected to the daemon (yet). */
        PEER_NOT_CONNECTED,
        /** The neighbour reports something else on the claimed port. */
        CONTRADICTED,
        /** The claimed neighbour has no such port. */
        PEER_PORT_INVALID,
        /** The end node is also claimed by another switch port or is a switch's GUID. */
        NODE_CONFLICT
    }

    @Override
    public String toString() {
        return kind + " at " + at + ": " + detail;
    }
}
