package org.fabricmanager.daemon.store;

import org.fabricmanager.routing.ForwardingTables;

/**
 * Stored routing: the fingerprint of the routed fabric, the table version, the engine and the tables.
 */
public record RoutingState(String fingerprint, long version, String engine, ForwardingTables tables) {
}
