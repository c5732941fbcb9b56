package org.fabricmanager.routing.analysis;

/**
 * Congestion risk of the tables under one traffic pattern: routes per directed switch-to-switch
 * link, maximised over links. For the permutation patterns, {@code max} is the largest of the
 * permutations' maxima and {@code mean} the mean of those maxima; for all-to-all (a single
 * "permutation") both are the all-to-all maximum.
 *
 * @param pattern       the pattern
 * @param permutations  permutations evaluated (N-1 shifts, R random, 1 for all-to-all)
 * @param max           largest number of routes on one directed link in one permutation
 * @param mean          mean over permutations of each permutation's maximum
 * <p>With an LMC the counts are of flows, one per LID of a pair's destination ({@link CongestionAnalyzer}).
 *
 * @param unroutedPairs source-destination pairs of the pattern (flows under an LMC; summed over permutations) whose
 *                      route dead-ends or loops; they are left out of the counts
 */
public record PatternCongestion(TrafficPattern pattern, int permutations, long max, double mean, long unroutedPairs) {
}
