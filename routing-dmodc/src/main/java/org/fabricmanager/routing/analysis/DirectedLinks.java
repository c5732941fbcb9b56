package org.fabricmanager.routing.analysis;

import org.fabricmanager.topology.FabricIndex;

/**
 * Dense numbering of the directed links that leave switch ports: the link out of port {@code p} of
 * switch {@code s} has id {@code start(s) + p - 1}, whether or not a cable is plugged in (unplugged
 * ports simply carry no route). Per id it records what the port leads to: a neighbour switch and its
 * port, a node, or nothing. Links out of nodes (node to leaf) are not numbered: a node sends on its
 * only port, so those links need no id for the analyses.
 */
public final class DirectedLinks {
    private final int[] start;
    private final int[] source;
    private final int[] peerSwitch;
    private final int[] peerPort;
    private final int[] peerNode;

    private DirectedLinks(int[] start, int[] source, int[] peerSwitch, int[] peerPort, int[] peerNode) {
        this.start = start;
        this.source = source;
        this.peerSwitch = peerSwitch;
        this.peerPort = peerPort;
        this.peerNode = peerNode;
    }

    /** Numbers every switch port of {@code index}. */
    public static DirectedLinks of(FabricIndex index) {
        int n = index.switchCount();
        int[] start = new int[n + 1];
        for (int s = 0; s < n; s++) {
            start[s + 1] = start[s] + index.switchPorts(s);
        }
        int count = start[n];
        int[] source = new int[count];
        int[] peerSwitch = new int[count];
        int[] peerPort = new int[count];
        int[] peerNode = new int[count];
        for (int s = 0; s < n; s++) {
            int[] ps = index.peerSwitches(s);
            int[] pp = index.peerPorts(s);
            int[] pn = index.peerNodes(s);
            for (int p = 1; p <= index.switchPorts(s); p++) {
                int l = start[s] + p - 1;
                source[l] = s;
                peerSwitch[l] = ps[p];
                peerPort[l] = pp[p];
                peerNode[l] = pn[p];
            }
        }
        return new DirectedLinks(start, source, peerSwitch, peerPort, peerNode);
    }

    /** Number of ids (all switch ports of the fabric). */
    public int count() {
        return source.length;
    }

    /** The id of the link out of port {@code port} of switch {@code s}, or {@link FabricIndex#NONE} for a port the switch does not have. */
    public int id(int s, int port) {
        if (port < 1 || port > start[s + 1] - start[s]) {
            return FabricIndex.NONE;
        }
        return start[s] + port - 1;
    }

    /** The switch the link leaves. */
    public int sourceSwitch(int link) {
        return source[link];
    }

    /** The port of {@link #sourceSwitch(int)} the link leaves by. */
    public int port(int link) {
        return link - start[source[link]] + 1;
    }

    /** The neighbour switch the link leads to, or {@link FabricIndex#NONE}. */
    public int peerSwitch(int link) {
        return peerSwitch[link];
    }

    /** The port of {@link #peerSwitch(int)} the link arrives on, or {@link FabricIndex#NONE}. */
    public int peerPort(int link) {
        return peerPort[link];
    }

    /** The node position the link leads to, or {@link FabricIndex#NONE}. */
    public int peerNode(int link) {
        return peerNode[link];
    }

    /** True when the link joins two switches (the links congestion and deadlock analyses look at). */
    public boolean isSwitchLink(int link) {
        return peerSwitch[link] != FabricIndex.NONE;
    }

    // Raw arrays for the analyses' hot loops; never handed out of the package.
    int[] startArray() {
        return start;
    }

    int[] peerSwitchArray() {
        return peerSwitch;
    }

    int[] peerPortArray() {
        return peerPort;
    }

    int[] peerNodeArray() {
        return peerNode;
    }
}
