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
 * last change when the fabric is the one the stored routing was computed for. Control thread.
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
    /** Whether the fabric is the stored routing's (asked after a pause in the changes; built when it may be). */
    private final BooleanSupplier stored;
    private final Consumer<String> settled;
    private boolean done;
    private long firstChangeNanos = -1;

    DiscoverySettle(DaemonConfig.Discovery timing, PgftSpec expected, ControlLoop queue, IntSupplier admitted,
                    BooleanSupplier complete, BooleanSupplier stored, Consumer<String> settled) {
        this.timing = timing;
        this.expected = expected;
        this.queue = queue;
        this.admitted = admitted;
        this.complete = complete;
        this.stored = stored;
        this.settled = settled;
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
        if (!done && stored.getAsBoolean()) {
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
    }

    /** Cancels the pending windows. */
    void cancel() {
        queue.cancelDeferred(SETTLE);
        queue.cancelDeferred(DEADLINE);
        queue.cancelDeferred(STORED);
    }
}
