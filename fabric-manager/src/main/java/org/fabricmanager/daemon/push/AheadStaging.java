package org.fabricmanager.daemon.push;

import java.util.Collection;
import java.util.List;
import org.fabricmanager.daemon.push.SwitchPush.Diff;
import org.fabricmanager.daemon.push.SwitchPush.Staged;
import org.fabricmanager.daemon.push.SwitchPush.Status;
import org.fabricmanager.southbound.LftBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Blocks an {@link LftPusher} sends ahead of their version's installation (see {@link LftPusher#stage}): which
 * tables are staged, and on which switches ({@link SwitchPush#staged}). At most {@code push.maxInFlight} full
 * tables' worth, as a push puts on the wire at once.
 */
final class AheadStaging {
    private static final Logger LOG = LoggerFactory.getLogger(LftPusher.class);

    private final WireRoom wire;
    private final PushAccounting accounting;
    /** The tables whose blocks are staged on some switches (each {@link SwitchPush#staged} says), or {@code null}. */
    private TableSet staging;

    AheadStaging(WireRoom wire, PushAccounting accounting) {
        this.wire = wire;
        this.accounting = accounting;
    }

    /**
     * Stages {@code next}'s blocks on the {@code switches} whose rows it changes and that hold the {@code current}
     * tables with nothing on the wire.
     *
     * @return the switches that got blocks
     */
    int stage(TableSet current, TableSet next, Collection<SwitchPush> switches) {
        drop(switches);
        if (current == null || next.version() <= current.version() || next.length() <= 0) {
            return 0;
        }
        int count = 0;
        long blocks = 0;
        long room = wire.capacity();
        for (SwitchPush sp : switches) {
            int row = next.row(sp.guid);
            if (sp.status != Status.IN_SYNC || sp.inFlight != null || wire.isWaiting(sp.guid) || row < 0) {
                continue;
            }
            List<LftBatch.Block> diff = BlockDiff.blocks(sp.held, next, row);
            if (diff.isEmpty()) {
                continue;
            }
            room -= WireRoom.weight(next, diff.size());
            if (room < 0) {
                break; // as much as a push puts on the wire at once; the rest goes with the commits
            }
            LftBatch batch = new LftBatch(next.version(), diff, next.length(), next.hash(row));
            long bytes = batch.blockBytes(sp.session.blockRunEntries());
            sp.session.stage(batch);
            sp.staged = new Staged(new Diff(next, row, sp.held, diff), bytes);
            count++;
            blocks += diff.size();
            accounting.sent(diff.size(), bytes);
        }
        if (count > 0) {
            staging = next;
            LOG.debug("staged v{} ahead on {} switches: {} blocks", next.version(), count, blocks);
        }
        return count;
    }

    /** Forgets the blocks staged ahead on {@code switches} (their tables will not be installed). */
    void drop(Collection<SwitchPush> switches) {
        if (staging == null) {
            return;
        }
        staging = null;
        for (SwitchPush sp : switches) {
            sp.staged = null; // frees the tables too: the staging's references are the last to a dropped routing
        }
    }

    /**
     * {@code tables} are installed: blocks staged for other tables are dropped, and those staged for these are
     * committed from each switch's own reference.
     */
    void installing(TableSet tables, Collection<SwitchPush> switches) {
        if (staging != null && staging != tables) {
            drop(switches);
        }
        staging = null;
    }
}
