package org.fabricmanager.routing;

/**
 * What an engine produced for one fabric snapshot: the tables, whether every leaf pair is routed,
 * and how long each phase took.
 */
public record RoutingResult(String engine, ForwardingTables tables, Validity validity, PhaseTimings timings) {
}
