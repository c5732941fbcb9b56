package org.fabricmanager.routing.analysis;

import java.util.List;
import org.fabricmanager.routing.Validity;

/**
 * What {@code quality} reports for one set of tables: leaf-pair validity, deadlock freedom over the
 * virtual channels the tables use, the longest route ({@code -1} when no pair is routed) and the
 * congestion risk under each traffic pattern, in the order the patterns were given.
 */
public record QualityFigures(Validity validity, boolean deadlockFree, int virtualChannels, int maxPathLength,
                             List<PatternCongestion> patterns) {
    public QualityFigures {
        patterns = List.copyOf(patterns);
    }
}
