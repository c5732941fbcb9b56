package org.fabricmanager.routing.analysis;

/**
 * Lengths of the routes between attached nodes, in switch-to-switch links (0 between two nodes of
 * one leaf), over every ordered pair of distinct nodes whose route is delivered.
 *
 * @param max           longest route, or -1 when no route is delivered
 * @param mean          mean over the delivered routes (0 when none)
 * @param routedPairs   ordered node pairs whose route is delivered
 * @param unroutedPairs ordered node pairs whose route dead-ends or loops
 */
public record PathLengths(int max, double mean, long routedPairs, long unroutedPairs) {
}
