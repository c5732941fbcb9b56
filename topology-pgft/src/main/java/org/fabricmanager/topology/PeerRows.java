package org.fabricmanager.topology;

/**
 * The adjacency rows of a {@link FabricIndex}: per switch id, per port (index = port number, 0 unused), the
 * neighbour switch id and its port, or the attached node's position ({@link FabricIndex#NONE} where there is none).
 * Handed between the index and the classes that build it.
 */
record PeerRows(int[][] peerSwitch, int[][] peerPort, int[][] peerNode) {
    /** Rows for {@code n} switches, to be filled. */
    static PeerRows ofSize(int n) {
        return new PeerRows(new int[n][], new int[n][], new int[n][]);
    }

    /** Switch id {@code s} is {@code sw} in {@code switches}, none of its ports connected yet. */
    void unconnectedRow(SwitchTable switches, int s, FabricSwitch sw) {
        switches.guid()[s] = sw.guid();
        switches.ports()[s] = sw.ports();
        switches.idByGuid().putIfAbsent(sw.guid(), s);
        peerSwitch[s] = FabricIndex.filled(sw.ports() + 1);
        peerPort[s] = FabricIndex.filled(sw.ports() + 1);
        peerNode[s] = FabricIndex.filled(sw.ports() + 1);
    }
}
