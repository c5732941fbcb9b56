package org.fabricmanager.routing;

import java.util.List;

/**
 * Wall-clock time of each phase of one routing computation, in the order the phases ran (for
 * Dmodc: ranking, groups, cost and divider, routes), and their total.
 */
public record PhaseTimings(List<Phase> phases) {

    /** One named phase and its duration in nanoseconds. */
    public record Phase(String name, long nanos) {
        public double millis() {
            return nanos / 1e6;
        }
    }

    public PhaseTimings {
        phases = List.copyOf(phases);
    }

    /** Sum of all phases, in nanoseconds. */
    public long totalNanos() {
        long total = 0;
        for (Phase p : phases) {
            total += p.nanos();
        }
        return total;
    }

    public double totalMillis() {
        return totalNanos() / 1e6;
    }
}
