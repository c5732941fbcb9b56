package org.fabricmanager.southbound;

import org.fabricmanager.topology.Guids;

/**
 * What an agent reports about one of its ports: up or down, and the neighbour learned on the link (a
 * switch port, an end node, or nothing). Used by PORT_INFO (all ports) and PORT_STATUS (changes).
 *
 * @param peerName the neighbour's description if known, else empty
 */
public record PortRecord(int port, State state, PeerKind peerKind, long peerGuid, int peerPort, String peerName) {
    /** Longest neighbour description, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 64;

    /** Link state of a port. */
    public enum State {
        DOWN, UP
    }

    /** What is at the other end of a link. */
    public enum PeerKind {
        NONE, SWITCH, NODE
    }

    public PortRecord {
        if (peerName == null) {
            peerName = "";
        }
    }

    /** A port that is down (no neighbour). */
    public static PortRecord down(int port) {
        return new PortRecord(port, State.DOWN, PeerKind.NONE, 0L, 0, "");
    }

    /** A port that is up with no identified neighbour. */
    public static PortRecord upWithoutPeer(int port) {
        return new PortRecord(port, State.UP, PeerKind.NONE, 0L, 0, "");
    }

    /** A port that is up and cabled to port {@code peerPort} of switch {@code peerGuid}. */
    public static PortRecord toSwitch(int port, long peerGuid, int peerPort, String peerName) {
        return new PortRecord(port, State.UP, PeerKind.SWITCH, peerGuid, peerPort, peerName);
    }

    /** A port that is up and cabled to (port 1 of) end node {@code nodeGuid}. */
    public static PortRecord toNode(int port, long nodeGuid, String nodeName) {
        return new PortRecord(port, State.UP, PeerKind.NODE, nodeGuid, 1, nodeName);
    }

    public boolean isUp() {
        return state == State.UP;
    }

    @Override
    public String toString() {
        if (state == State.DOWN) {
            return "port " + port + " DOWN";
        }
        return switch (peerKind) {
            case NONE -> "port " + port + " UP (no peer)";
            case SWITCH -> "port " + port + " UP to switch " + Guids.format(peerGuid) + ":" + peerPort;
            case NODE -> "port " + port + " UP to node " + Guids.format(peerGuid);
        };
    }
}
