package org.fabricmanager.daemon;

import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.topology.Guids;

/**
 * Tells the operator that switches wait for admission without letting a flood of unknown GUIDs flood the
 * log: the first pending switch of each 10-second interval is a {@code SWITCH_PENDING} milestone (an INFO
 * line and an event), later ones in the interval are counted and summed up in the next interval's line.
 * {@code GET /api/v1/switches/pending} lists them all. Control thread only.
 */
final class PendingLog {
    private static final long INTERVAL_NANOS = 10_000_000_000L;

    private final MilestoneLog milestones;
    private long intervalStart = Long.MIN_VALUE;
    private int suppressed;

    PendingLog(MilestoneLog milestones) {
        this.milestones = milestones;
    }

    void pending(ManagedSwitch ms, String reason) {
        long now = System.nanoTime();
        if (intervalStart != Long.MIN_VALUE && now - intervalStart < INTERVAL_NANOS) {
            suppressed++;
            return;
        }
        String more = suppressed == 0 ? "" : " (and " + suppressed + " more switches since the last such line)";
        intervalStart = now;
        suppressed = 0;
        milestones.record(Milestone.Kind.SWITCH_PENDING, "switch " + Guids.format(ms.guid()) + " (" + ms.name()
                + ") waits for admission: " + reason + "; admit it with POST /api/v1/switches/" + Guids.format(ms.guid())
                + "/admit" + more);
    }
}
