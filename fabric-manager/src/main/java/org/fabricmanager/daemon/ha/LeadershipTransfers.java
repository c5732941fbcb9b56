package org.fabricmanager.daemon.ha;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The leadership transfers this member asked for because OpenSM's master SM, on its host, called the routing engine
 * while the member was a standby ({@link OpenSmStandby}), by outcome: counted for the
 * {@value HaMetrics#OPENSM_TRANSFERS} meter, which the standby's registry and every manager's registry show.
 */
final class LeadershipTransfers {
    /** What became of the routing passes a standby received. */
    enum Outcome {
        /** A transfer to this member was asked of the leader. */
        REQUESTED,
        /** The leader handed over: this member leads. */
        DONE,
        /** The leader refused, could not be reached, or the transfer timed out. */
        FAILED,
        /** A pass refused without asking (one in flight, no leader known, just lost the leadership, after a failure). */
        HELD;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Map<Outcome, LongAdder> counts = new EnumMap<>(Outcome.class);

    LeadershipTransfers() {
        for (Outcome o : Outcome.values()) {
            counts.put(o, new LongAdder());
        }
    }

    void record(Outcome outcome) {
        counts.get(outcome).increment();
    }

    long count(Outcome outcome) {
        return counts.get(outcome).sum();
    }
}
