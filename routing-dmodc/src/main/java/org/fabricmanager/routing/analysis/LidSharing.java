package org.fabricmanager.routing.analysis;

/**
 * How far the LIDs of a port take distinct paths (LMC > 0): over every pair of a leaf and a node attached to another
 * leaf, the routes from the leaf to each of the node's {@code lids} LIDs, and the switch-to-switch links they share.
 * Routes are by destination, so every source node of a leaf has its leaf's routes: a leaf/port pair stands for all
 * of them. Without an LMC ({@code lids} 1) nothing can be shared and every count is 0.
 *
 * @param lids         LIDs per port (2^lmc): the flows of each pair
 * @param pairs        leaf/port pairs whose every flow is delivered
 * @param sharedAtLeaf of those, the pairs two of whose flows leave the leaf through the same up-port
 * @param shared       of those, the pairs two of whose flows cross some switch-to-switch link together
 * @param maxShared    the most flows of one pair on one link (1 when none are shared, 0 without pairs)
 * @param unrouted     leaf/port pairs with a flow that dead-ends or loops, left out of the counts
 */
public record LidSharing(int lids, long pairs, long sharedAtLeaf, long shared, int maxShared, long unrouted) {
}
