package org.fabricmanager.daemon.api;

/**
 * {@code GET /api/v1/routing}: the routing in force (as in {@code GET /api/v1/status}) and how far it is from a full
 * recompute of the same fabric. {@code fromFull} says what is known: {@code full} (the tables in force are a full
 * routing: a rebalance changes nothing), {@code pending} (a repair, to be compared once its quality is measured),
 * {@code computing}, {@code known} ({@code estimate} holds the entries that differ and the quality of both), or
 * {@code none} before the first routing.
 */
public record RoutingView(Views.Routing routing, String fromFull, RebalanceEstimate estimate) {
}
