package org.fabricmanager.daemon.api;

/**
 * {@code GET /api/v1/routing/quality}: the routing version in force ({@code 0} before the first), the
 * latest quality measured ({@code null} before the first measurement ends), whether a measurement is
 * running ({@code computing}) and whether the quality shown is of another version than the one in force
 * ({@code stale}: a newer routing is being measured, or waits for its tables to converge or for its turn).
 */
public record QualityView(long routingVersion, boolean computing, boolean stale, RoutingQuality quality) {
}
