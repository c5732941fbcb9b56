package org.fabricmanager.daemon.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/**
 * A milestone an operator cares about (switches discovered, routing computed, tables converged...),
 * numbered in order of occurrence.
 *
 * @param seq        1, 2, 3, ... since the daemon started
 * @param timeMillis wall-clock time
 * @param kind       machine-readable kind
 * @param message    the log line
 * @param details    figures of a fault reaction, what became of a ring verdict ({@code SWITCH_FAILED}), or
 *                   {@code null} for other kinds
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Milestone(long seq, long timeMillis, Kind kind, String message, Map<String, Object> details) {
    /** A milestone without figures. */
    public Milestone(long seq, long timeMillis, Kind kind, String message) {
        this(seq, timeMillis, kind, message, null);
    }

    /** Kinds of milestone. */
    public enum Kind {
        STARTED, FABRIC_DISCOVERED, FABRIC_CHANGED, ROUTING_COMPUTED, ROUTING_REUSED, ROUTING_FAILED, PUSH_STARTED,
        CONVERGED, SWITCH_CONNECTED, SWITCH_LOST, SWITCH_PENDING, SWITCH_ADMITTED, SWITCH_RESTARTED, SWITCH_RECONNECTED, SWITCH_FAILED, LINK_QUARANTINED, LINK_RELEASED,
        SWITCH_QUARANTINED, SWITCH_RELEASED,
        REACTION, REROUTE, DETECTOR_RUNNING, MANAGEMENT_OUTAGE, NODE_UNREACHABLE, NODE_REACHABLE,
        CONFIG_RELOADED, DRAINED, UNDRAINED, OPENSM_EVENT, OPENSM_LOST, OPENSM_BACK, REBALANCED,
        LINK_SUSPECT, LINK_ISOLATED, LINK_REINSTATED
    }
}
