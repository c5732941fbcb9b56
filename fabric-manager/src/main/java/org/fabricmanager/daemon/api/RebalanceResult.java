package org.fabricmanager.daemon.api;

/**
 * {@code POST /api/v1/routing/rebalance}: the full routing installed in place of the tables in force
 * ({@code previousVersion}), once computed: its version, the entries it changed ({@code null} for an engine that does
 * not count them), the 64-entry blocks pushed and the switches they went to, whether the tables it replaced were a
 * repair, why it ran ({@code operator} or {@code quiet period of 30m}) and the engine's time.
 */
public record RebalanceResult(String result, String reason, long routingVersion, long previousVersion,
                              boolean replacedRepair, Long changedEntries, long changedBlocks, int switchesTouched,
                              double durationMs) {
}
