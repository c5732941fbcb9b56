package org.fabricmanager.daemon.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.fabricmanager.routing.analysis.PatternCongestion;
import org.fabricmanager.routing.analysis.QualityFigures;

/**
 * The quality of one routing version's tables, the figures {@code quality --lft} prints for them:
 * validity (traced on the tables), deadlock freedom, virtual channels, the longest route
 * ({@code null} when nothing is routed) and, per pattern name ({@code shift}, {@code random},
 * {@code all2all}), the congestion figures; with how long the measurement took.
 */
public record RoutingQuality(long routingVersion, String engine, boolean valid, long unreachableLeafPairs,
                             boolean deadlockFree, int virtualChannels, Integer maxPathLength, String patternsMeasured,
                             Map<String, PatternFigures> patterns, double durationMs) {
    public RoutingQuality {
        patterns = Collections.unmodifiableMap(new LinkedHashMap<>(patterns));
    }

    /** The report of {@code figures} for routing {@code version}. */
    public static RoutingQuality of(long version, String engine, QualityFigures figures, double durationMs) {
        Map<String, PatternFigures> patterns = new LinkedHashMap<>();
        StringBuilder measured = new StringBuilder();
        for (PatternCongestion c : figures.patterns()) {
            patterns.put(c.pattern().name(), PatternFigures.of(c));
            measured.append(measured.length() == 0 ? "" : ",").append(c.pattern());
        }
        return new RoutingQuality(version, engine, figures.validity().isValid(), figures.validity().unreachablePairs(),
                figures.deadlockFree(), figures.virtualChannels(),
                figures.maxPathLength() < 0 ? null : figures.maxPathLength(), measured.toString(), patterns, durationMs);
    }
}
