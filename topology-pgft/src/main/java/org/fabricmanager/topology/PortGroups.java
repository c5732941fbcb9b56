package org.fabricmanager.topology;

import java.util.Arrays;

/**
 * The port groups of a {@link FabricIndex} in CSR layout: per switch, {@code start} into {@code neighbour} (one
 * entry per distinct neighbour switch, ascending id); per group, {@code portStart} into {@code ports} (its port
 * numbers, ascending). Links from a switch to itself are not grouped.
 */
record PortGroups(int[] start, int[] neighbour, int[] portStart, int[] ports) {
    /** The port groups of every switch from its peer row. */
    static PortGroups of(int[] switchPorts, int[][] peerSwitch) {
        return of(switchPorts, peerSwitch, null, null, null, null);
    }

    /**
     * The port groups of every switch from the peer rows, or, with {@code old} groups, copied from them for
     * the switches not {@code touched} (old id {@code oldOf[s]}, neighbour ids mapped by {@code newId}).
     */
    static PortGroups of(int[] switchPorts, int[][] peerSwitch, boolean[] touched, PortGroups old, int[] oldOf,
                         int[] newId) {
        int n = switchPorts.length;
        int[] start = new int[n + 1];
        int[][] neighbours = new int[n][];
        int groups = 0;
        int ports = 0;
        for (int s = 0; s < n; s++) {
            start[s] = groups;
            if (old == null || touched[s]) {
                neighbours[s] = distinctNeighbours(switchPorts[s], peerSwitch[s], s);
                groups += neighbours[s].length;
                for (int p = 1; p <= switchPorts[s]; p++) {
                    if (peerSwitch[s][p] != FabricIndex.NONE && peerSwitch[s][p] != s) {
                        ports++;
                    }
                }
            } else {
                int o = oldOf[s];
                groups += old.start[o + 1] - old.start[o];
                ports += old.portStart[old.start[o + 1]] - old.portStart[old.start[o]];
            }
        }
        start[n] = groups;
        int[] neighbour = new int[groups];
        int[] portStart = new int[groups + 1];
        int[] portList = new int[ports];
        int g = 0;
        int pi = 0;
        for (int s = 0; s < n; s++) {
            if (neighbours[s] != null) {
                for (int peer : neighbours[s]) {
                    neighbour[g] = peer;
                    portStart[g] = pi;
                    for (int p = 1; p <= switchPorts[s]; p++) {
                        if (peerSwitch[s][p] == peer) {
                            portList[pi++] = p;
                        }
                    }
                    g++;
                }
            } else {
                int o = oldOf[s];
                int og = old.start[o];
                int count = old.start[o + 1] - og;
                int op = old.portStart[og];
                int portCount = old.portStart[og + count] - op;
                for (int i = 0; i < count; i++) {
                    neighbour[g + i] = newId[old.neighbour[og + i]];
                    portStart[g + i] = old.portStart[og + i] - op + pi;
                }
                System.arraycopy(old.ports, op, portList, pi, portCount);
                g += count;
                pi += portCount;
            }
        }
        portStart[groups] = pi;
        return new PortGroups(start, neighbour, portStart, portList);
    }

    /** The distinct neighbour switches of switch {@code s} ({@code ports} ports, peer row {@code peers}), ascending. */
    private static int[] distinctNeighbours(int ports, int[] peers, int s) {
        int[] tmp = new int[ports];
        int k = 0;
        for (int p = 1; p <= ports; p++) {
            int peer = peers[p];
            if (peer != FabricIndex.NONE && peer != s) {
                tmp[k++] = peer;
            }
        }
        int[] sorted = Arrays.copyOf(tmp, k);
        Arrays.sort(sorted);
        int unique = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[unique++] = sorted[i];
            }
        }
        return Arrays.copyOf(sorted, unique);
    }
}
