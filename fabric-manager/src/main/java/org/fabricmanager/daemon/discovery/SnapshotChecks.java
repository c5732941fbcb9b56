package org.fabricmanager.daemon.discovery;

import java.util.LinkedHashMap;
import java.util.Map;
import org.fabricmanager.daemon.api.FabricCheck;

/**
 * The checks of discovery's snapshots against the expected shape, by snapshot number: the one handed out last, the
 * ones done, and the one whose fabric the routing in force was computed for. A check runs off the control thread and
 * may end after the routing of its snapshot did; the status must then say that the check is pending, not give the
 * verdict of the snapshot before (a CONVERGED on the new routing beside the old fabric's verdict). Control thread.
 */
final class SnapshotChecks {
    /** Checks kept: the routed snapshot is at most a few snapshots behind the last one (one routing at a time). */
    private static final int KEPT = 8;

    private final String expected;
    private long handedOut;
    private long done;
    private long inForce = -1;
    /** The check of snapshot {@link #inForce}, {@code null} while it runs (kept apart: never dropped from the recent). */
    private FabricCheck inForceCheck;
    private final Map<Long, FabricCheck> recent = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, FabricCheck> eldest) {
            return size() > KEPT;
        }
    };

    /** @param expected the expected shape's notation, {@code null} when none is configured (checks then end at once) */
    SnapshotChecks(String expected) {
        this.expected = expected;
    }

    /** Numbers the check of a new snapshot. */
    long next() {
        return ++handedOut;
    }

    /** The number of the last snapshot handed out (0 before the first). */
    long last() {
        return handedOut;
    }

    /**
     * Check {@code seq} is done with {@code c}.
     *
     * @return false when a later check ended first (this one is stale)
     */
    boolean complete(long seq, FabricCheck c) {
        if (seq <= done) {
            return false;
        }
        done = seq;
        recent.put(seq, c);
        if (seq == inForce) {
            inForceCheck = c;
        }
        return true;
    }

    /** The fabric of snapshot {@code seq} is the one the routing in force was computed for (or one equal to it). */
    void inForce(long seq) {
        inForce = seq;
        inForceCheck = recent.get(seq);
    }

    /** The check of the last snapshot: its verdict, or pending while it runs. */
    FabricCheck ofLast(FabricCheck latestDone) {
        return done < handedOut ? pending() : latestDone;
    }

    /** The check of the snapshot in force, pending while it runs; the last snapshot's before any routing. */
    FabricCheck ofRouted(FabricCheck latestDone) {
        if (inForce < 0) {
            return ofLast(latestDone);
        }
        return inForceCheck == null ? pending() : inForceCheck;
    }

    private FabricCheck pending() {
        return expected == null ? FabricCheck.notChecked() : FabricCheck.pending(expected);
    }
}
