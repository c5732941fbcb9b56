package org.fabricmanager.daemon.routing;

import org.fabricmanager.routing.RoutingResult;

/** A finished computation: the job, the engine's result and the wall-clock time including indexing. */
public record RoutingOutcome(RoutingJob job, RoutingResult result, long nanos) {
    public double millis() {
        return nanos / 1e6;
    }
}
