package org.fabricmanager.routing.analysis;

/**
 * What each directed link carries under one traffic pattern ({@link CongestionAnalyzer#linkLoads}),
 * with the pattern's summary. {@code loads} is indexed by {@link DirectedLinks} id: for permutations the
 * most routes the link carries in any one permutation, for all-to-all the routes crossing it.
 *
 * @param summary the pattern's figures, as {@link CongestionAnalyzer#analyze} gives them
 * @param loads   routes per directed link id (owned by this record; callers must not modify it)
 */
public record LinkLoads(PatternCongestion summary, long[] loads) {
}
