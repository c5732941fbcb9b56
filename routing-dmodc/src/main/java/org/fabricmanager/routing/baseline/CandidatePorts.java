package org.fabricmanager.routing.baseline;

/** The output ports an engine allows on a switch towards a leaf; what the least-subscribed choice picks from. */
interface CandidatePorts {
    /**
     * Writes the allowed ports of switch {@code s} towards leaf number {@code leaf} into {@code out}
     * (in any order) and returns how many there are; 0 when the leaf is unreachable from {@code s}.
     * Never called with {@code s} being the leaf itself.
     */
    int collect(int s, int leaf, int[] out);

    /**
     * Appends the ports of port group {@code g} (CSR arrays {@code portStart} and {@code groupPorts}
     * of the fabric index) to {@code out} from {@code out[count]} on; returns the new count.
     */
    static int addGroup(int[] portStart, int[] groupPorts, int g, int[] out, int count) {
        int c = count;
        for (int i = portStart[g]; i < portStart[g + 1]; i++) {
            out[c++] = groupPorts[i];
        }
        return c;
    }
}
