package org.fabricmanager.routing.baseline;

/** The output ports an engine allows on a switch towards a leaf; what the least-subscribed choice picks from. */
interface CandidatePorts {
    /**
     * Writes the allowed ports of switch {@code s} towards leaf number {@code leaf} into {@code out}
     * (in any order) and returns how many there are; 0 when the leaf is unreachable from {@code s}.
     * Never called with {@code s} being the leaf itself.
     */
    int collect(int s, int leaf, int[] out);
}
