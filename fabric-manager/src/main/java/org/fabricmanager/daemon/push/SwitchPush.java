package org.fabricmanager.daemon.push;

import java.util.List;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.topology.Guids;

/**
 * What {@link LftPusher} knows of one attached switch: what it holds, the batch it has on the wire, where it
 * stands against the current tables, its failures in a row, and blocks staged on it ahead or computed while it
 * waits for room on the wire. Changed on the control thread only.
 */
final class SwitchPush {
    final long guid;
    final String name;
    final SwitchSession session;
    HeldTable held;
    InFlight inFlight;
    Status status = Status.DETACHED;
    boolean failing;
    int attempts;
    long retries;
    /** The pusher's acknowledgements in all when this switch last acknowledged (0: never, in this session). */
    long lastAck;
    /** When it last acknowledged a batch (wall clock, ms), or -1 in this session not yet. */
    long confirmedAtMillis = -1;
    String lastError;
    /** Blocks sent ahead of their version's installation, or {@code null}. */
    Staged staged;
    /** The blocks it waits to be sent, computed when it came first in line without room on the wire, or {@code null}. */
    Diff waitingDiff;

    SwitchPush(long guid, String name, SwitchSession session, HeldTable held) {
        this.guid = guid;
        this.name = name;
        this.session = session;
        this.held = held;
    }

    @Override
    public String toString() {
        return name + " (" + Guids.format(guid) + ")";
    }

    /** Where an attached switch stands against the current tables. */
    enum Status {
        /** Not attached (yet, or any more): counted nowhere. */
        DETACHED,
        /** The current tables have no row for it (or there are none yet). */
        UNCOVERED,
        /** Covered, it does not hold its row yet, and the current tables route traffic through it. */
        PENDING,
        /**
         * Covered and it does not hold its row yet, but the current tables route no traffic through it (it has no
         * link left in their fabric): still pushed and retried, but convergence does not wait for it.
         */
        ROUTED_AROUND,
        /** Covered, and it holds its row (confirmed). */
        IN_SYNC
    }

    /** A batch on the wire; compared by identity (a record would hash every block of the batch). */
    static final class InFlight {
        final LftBatch batch;
        final TableSet target;
        final int row;
        final boolean full;
        final int weight;

        InFlight(LftBatch batch, TableSet target, int row, boolean full, int weight) {
            this.batch = batch;
            this.target = target;
            this.row = row;
            this.full = full;
            this.weight = weight;
        }
    }

    /** The blocks of row {@code row} of {@code target} for a switch holding {@code base}. */
    record Diff(TableSet target, int row, HeldTable base, List<LftBatch.Block> blocks) {
        /** Still the blocks to send for row {@code r} of {@code t} to a switch holding {@code held}. */
        boolean isFor(TableSet t, int r, HeldTable held) {
            return target == t && row == r && base == held;
        }
    }

    /**
     * Blocks sent ahead ({@code bytes} on the wire) without their commit: the commit alone installs them as long as
     * the switch holds the diff's base still and was sent nothing since.
     */
    record Staged(Diff diff, long bytes) {
    }
}
