package org.fabricmanager.daemon.api;

import org.fabricmanager.routing.analysis.PatternCongestion;
import org.fabricmanager.routing.analysis.TrafficPattern;

/**
 * Congestion risk under one traffic pattern as REST reports it: the routes on the busiest directed
 * switch-to-switch link ({@code max}), the mean over the pattern's permutations of their maxima
 * ({@code mean}, rounded to three decimals as {@code quality} prints it; {@code null} for all-to-all,
 * a single "permutation"), and the pattern's pairs whose route dead-ends or loops.
 */
public record PatternFigures(long max, Double mean, long unroutedPairs) {

    /** The figures of {@code c}. */
    public static PatternFigures of(PatternCongestion c) {
        return new PatternFigures(c.max(), c.pattern() instanceof TrafficPattern.AllToAll ? null
                : Math.round(c.mean() * 1000.0) / 1000.0, c.unroutedPairs());
    }
}
