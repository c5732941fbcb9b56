package org.fabricmanager.daemon.routing;

import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.routing.RoutingResult;

/**
 * A finished computation: the job, the engine's result, the tables ready to push (hashed, with the
 * blocks changed since the previous version), the engine's wall-clock time including indexing, and the
 * time it took to compare the tables with the previous version.
 */
public record RoutingOutcome(RoutingJob job, RoutingResult result, TableSet tables, long nanos, long compareNanos) {
    public double millis() {
        return nanos / 1e6;
    }

    public double compareMillis() {
        return compareNanos / 1e6;
    }
}
