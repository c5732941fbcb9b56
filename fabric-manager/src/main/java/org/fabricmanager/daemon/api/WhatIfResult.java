package org.fabricmanager.daemon.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code POST /api/v1/whatif}: the routing the live engine computes for the fabric in force without the
 * failed switches and links, compared with the tables in force ({@code routingVersion}): entries, 64-entry
 * blocks and switches that would change among the switches that survive, whether every leaf pair would
 * still be routed, deadlock freedom, the longest route, and the congestion per traffic pattern
 * ({@link WhatIfService#PATTERNS}, as {@code GET /api/v1/routing/quality} reports them for the tables in force).
 * {@code repaired}: the tables are the repair the daemon would install ({@code routing.onFault: repair}), and
 * {@code minimumEntries} the entries any valid routing must change for these failures, as a REACTION reports them
 * ({@code null} when the routing is recomputed).
 */
public record WhatIfResult(long routingVersion, String engine, int failedSwitches, int failedLinks,
                           long changedEntries, long changedBlocks, int switchesTouched, boolean valid,
                           long unreachableLeafPairs, boolean deadlockFree, Integer maxPathLength,
                           Map<String, PatternFigures> congestion, double routingMs, double analysisMs,
                           boolean repaired, Long minimumEntries) {
    public WhatIfResult {
        congestion = Collections.unmodifiableMap(new LinkedHashMap<>(congestion));
    }
}
