package org.fabricmanager.daemon;

/**
 * A milestone an operator cares about (switches discovered, routing computed, tables converged...),
 * numbered in order of occurrence.
 *
 * @param seq        1, 2, 3, ... since the daemon started
 * @param timeMillis wall-clock time
 * @param kind       machine-readable kind
 * @param message    the log line
 */
public record Milestone(long seq, long timeMillis, Kind kind, String message) {
    /** Kinds of milestone. */
    public enum Kind {
        STARTED, FABRIC_DISCOVERED, FABRIC_CHANGED, ROUTING_COMPUTED, ROUTING_REUSED, ROUTING_FAILED, PUSH_STARTED,
        CONVERGED, SWITCH_CONNECTED, SWITCH_LOST
    }
}
