package org.fabricmanager.routing.analysis;

import java.util.List;

/**
 * Result of the deadlock check: the size of the channel dependency graph of all routes and, when
 * the graph has a cycle, one cycle (each channel depends on the next, the last on the first).
 *
 * @param channels     switch-to-switch channels of the fabric (directed links times virtual channels)
 * @param usedChannels channels that at least one route between attached nodes crosses
 * @param dependencies distinct dependencies (channel pairs crossed one after the other by some route)
 * @param cycle        one dependency cycle, empty when the graph is acyclic
 */
public record DeadlockReport(int channels, int usedChannels, long dependencies, List<Channel> cycle) {
    public DeadlockReport {
        cycle = List.copyOf(cycle);
    }

    /** True when the channel dependency graph is acyclic, so the routes cannot deadlock. */
    public boolean deadlockFree() {
        return cycle.isEmpty();
    }
}
