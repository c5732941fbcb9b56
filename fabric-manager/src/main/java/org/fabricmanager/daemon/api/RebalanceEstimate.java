package org.fabricmanager.daemon.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a rebalance would do to the routing in force ({@code routingVersion}): the full routing of the same fabric by
 * the engine (Dmodc from scratch, as {@code POST /api/v1/routing/rebalance} installs it) compared with the tables in
 * force: entries, 64-entry blocks and switches that differ (0 when the tables in force are a full routing already),
 * whether the full routing connects every leaf pair, and the quality per traffic pattern of the tables in force
 * ({@code before}) and of the full routing ({@code after}), with the figures {@code GET /api/v1/routing/quality}
 * gives ({@code shift}, {@code random}, {@code all2all}; shift left out above 16,384 nodes).
 */
public record RebalanceEstimate(long routingVersion, String engine, boolean repaired, long changedEntries,
                                long changedBlocks, int switchesTouched, boolean valid, long unreachableLeafPairs,
                                Map<String, PatternFigures> before, Map<String, PatternFigures> after,
                                double routingMs, double analysisMs) {
    public RebalanceEstimate {
        before = Collections.unmodifiableMap(new LinkedHashMap<>(before));
        after = Collections.unmodifiableMap(new LinkedHashMap<>(after));
    }
}
