package org.fabricmanager.daemon.discovery;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.topology.PgftSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When discovery ends and the first routing starts: once the fabric settles (no change for {@code discovery.settleMs},
 * and with an expected PGFT at least half of its switches), at most {@code discovery.maxWaitMs} after the first
 * report, at once when every switch and link of the expected PGFT is there, or {@link #STORED_QUIET_MS} after the
 * last change when the fabric is the one the stored routing was computed for. While a switch of the stored routing
 * is seen cabled up by a connected one but has not connected itself (its agent still on its way to this manager
 * after a takeover), a quiet fabric waits on, up to the maximum wait: routing without it would move every route
 * through it away from a switch that forwards, and back when it connects. Control thread.
 */
final class DiscoverySettle {
    private static final Logger LOG = LoggerFactory.getLogger(DiscoverySettle.class);
    private static final String SETTLE = "discovery-settle";
    private static final String DEADLINE = "discovery-deadline";
    private static final String STORED = "discovery-stored";
    /**
     * The pause in the reports after which the fabric is compared with the stored routing's. After a restart or a
     * takeover the agents report within a second or so; a fabric with a cable down or drained is never the expected
     * PGFT complete, and would wait the whole settle window for a routing it already has. The pause keeps the
     * comparison (a build of the fabric and its fingerprint) to a few times, not once per report of thousands.
     */
    static final long STORED_QUIET_MS = 100;

    private final DaemonConfig.Discovery timing;
    private final PgftSpec expected;
    private final ControlLoop queue;
    private final IntSupplier admitted;
    /** Whether the expected fabric is complete (asked at every change; {@code false} without an expected PGFT). */
    private final BooleanSupplier complete;
    /** What discovery asks of the stored routing: whether the fabric is its, which of its switches are awaited. */
    private final Stored stored;
    private boolean toldAwaited;
    private final Consumer<String> settled;
    private boolean done;
    private long firstChangeNanos = -1;

    DiscoverySettle(DaemonConfig.Discovery timing, PgftSpec expected, ControlLoop queue, IntSupplier admitted,
                    BooleanSupplier complete, Stored stored, Consumer<String> settled) {
        this.timing = timing;
        this.expected = expected;
        this.queue = queue;
        this.admitted = admitted;
        this.complete = complete;
        this.stored = stored;
        this.settled = settled;
    }

    /**
     * What discovery asks of the routing an earlier run stored (a restart or a takeover reuses it).
     *
     * @param here    whether the fabric is the one it was computed for (asked after a pause in the changes)
     * @param awaited how many of its switches are cabled up to connected ones but not connected themselves
     */
    record Stored(BooleanSupplier here, IntSupplier awaited) {
    }

    /** True once the first routing was started. */
    boolean done() {
        return done;
    }

    /** The fabric changed: re-arm the settle window, or end discovery now when the expected fabric is complete. */
    void changed() {
        if (done) {
            return;
        }
        if (firstChangeNanos < 0) {
            firstChangeNanos = System.nanoTime();
            queue.scheduleDeferred(DEADLINE, timing.maxWaitMs(), () -> settle("maximum discovery wait reached"));
        }
        if (complete.getAsBoolean()) {
            settle("every expected switch and link is present");
            return;
        }
        queue.scheduleDeferred(SETTLE, timing.settleMs(), this::quiet);
        queue.scheduleDeferred(STORED, Math.min(STORED_QUIET_MS, timing.settleMs()), this::paused);
    }

    /** A pause in the changes: discovery ends now if the fabric is the one the stored routing was computed for. */
    private void paused() {
        if (!done && stored.here().getAsBoolean()) {
            settle("the fabric is the stored routing's");
        }
    }

    /**
     * No change for the settle window. With an expected PGFT, a fabric that has not half of its switches yet
     * is still arriving (agents of thousands of switches start over seconds, from several hosts): the window
     * is re-armed, and the maximum wait still ends discovery.
     */
    private void quiet() {
        if (expected != null && 2L * admitted.getAsInt() < expected.totalSwitchCount()) {
            LOG.debug("discovery: {} of {} expected switches after {} ms without change: waiting on",
                    admitted.getAsInt(), expected.totalSwitchCount(), timing.settleMs());
            queue.scheduleDeferred(SETTLE, timing.settleMs(), this::quiet);
            return;
        }
        int awaited = stored.awaited().getAsInt();
        if (awaited > 0) {
            if (!toldAwaited) {
                toldAwaited = true;
                LOG.info("discovery: {} switches of the stored routing are cabled up but not connected yet: waiting "
                        + "for them, at most {} ms after the first report", awaited, timing.maxWaitMs());
            }
            queue.scheduleDeferred(SETTLE, timing.settleMs(), this::quiet);
            return;
        }
        settle("no change for " + timing.settleMs() + " ms");
    }

    private void settle(String why) {
        if (done) {
            return;
        }
        cancel();
        done = true;
        LOG.debug("discovery settled: {}", why);
        settled.accept(why);
    }

    /** Discovery starts again: the next change arms the windows. */
    void restart() {
        done = false;
        firstChangeNanos = -1;
        toldAwaited = false;
    }

    /** Cancels the pending windows. */
    void cancel() {
        queue.cancelDeferred(SETTLE);
        queue.cancelDeferred(DEADLINE);
        queue.cancelDeferred(STORED);
    }
}
