package org.fabricmanager.daemon.control;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches how long the control thread spends on each event and how long each waited for it. Every fault's
 * reaction runs through that one thread, so an event that holds it delays the next fault by as much: one over
 * {@link #WARN_MS} is a warning an operator should see (at most one per {@link #WARN_EVERY_MS}, with the count
 * of those not logged), and at DEBUG every event over {@link #DEBUG_MS} of work or wait is logged, which is how a
 * reaction's time is taken apart without a profiler (events that only waited: at most
 * {@link #WAIT_LINES_PER_SECOND} lines a second). Used by the queue's thread only.
 */
final class SlowEvents {
    private static final Logger LOG = LoggerFactory.getLogger(SlowEvents.class);
    static final long WARN_MS = 1_000;
    static final long WARN_EVERY_MS = 10_000;
    static final long DEBUG_MS = 10;
    static final int WAIT_LINES_PER_SECOND = 20;

    private long lastWarnNanos;
    private boolean warned;
    private long unlogged;
    private long slow;
    private long longestNanos;
    private long waitSecondStartNanos = Long.MIN_VALUE / 2;
    private int waitLines;

    /**
     * Whether the queue should also measure the CPU each event takes (only when its lines are logged: a thread's
     * CPU clock costs a system call, twice per event). On a busy host an event's wall time is mostly waiting for a
     * core; the CPU time says what the event itself costs.
     */
    boolean wantsCpu() {
        return LOG.isDebugEnabled();
    }

    /**
     * Event {@code name} waited {@code waitNanos} after it was due and then ran for {@code runNanos}, of which
     * {@code cpuNanos} on a core (-1: not measured).
     */
    void ran(String name, long waitNanos, long runNanos, long cpuNanos, long nowNanos) {
        longestNanos = Math.max(longestNanos, runNanos);
        long runMs = TimeUnit.NANOSECONDS.toMillis(runNanos);
        if (runMs >= WARN_MS) {
            slow++;
            if (!warned || nowNanos - lastWarnNanos >= TimeUnit.MILLISECONDS.toNanos(WARN_EVERY_MS)) {
                LOG.warn("control event '{}' held the control thread for {} ms (faults wait meanwhile){}", name, runMs,
                        unlogged == 0 ? "" : "; " + unlogged + " more such events since the last warning");
                warned = true;
                lastWarnNanos = nowNanos;
                unlogged = 0;
            } else {
                unlogged++;
            }
        } else if (LOG.isDebugEnabled() && (runMs >= DEBUG_MS || waitedLong(waitNanos, nowNanos))) {
            LOG.debug("control event '{}': waited {} ms, ran {} ms{}", name,
                    String.format(Locale.ROOT, "%.1f", waitNanos / 1e6), String.format(Locale.ROOT, "%.1f", runNanos / 1e6),
                    cpuNanos < 0 ? "" : String.format(Locale.ROOT, " (%.1f ms of CPU)", cpuNanos / 1e6));
        }
    }

    /**
     * Whether an event's wait is worth a line: {@link #DEBUG_MS} or more, and at most {@link #WAIT_LINES_PER_SECOND}
     * such lines a second (a backlog of a push's acknowledgements would otherwise log each of them).
     */
    private boolean waitedLong(long waitNanos, long nowNanos) {
        if (TimeUnit.NANOSECONDS.toMillis(waitNanos) < DEBUG_MS) {
            return false;
        }
        if (nowNanos - waitSecondStartNanos >= TimeUnit.SECONDS.toNanos(1)) {
            waitSecondStartNanos = nowNanos;
            waitLines = 0;
        }
        return waitLines++ < WAIT_LINES_PER_SECOND;
    }

    /** Events that ran {@link #WARN_MS} or longer. */
    long slow() {
        return slow;
    }

    /** The longest an event has run, in nanoseconds. */
    long longestNanos() {
        return longestNanos;
    }
}
