package org.fabricmanager.daemon.health;

import java.util.Arrays;
import org.fabricmanager.daemon.counters.PortSpeedLimit;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;

/**
 * One port's packets, errors and drops over a sliding window, from the successive counter values its switch reports.
 * The values are untrusted: only an increase between two values both measured counts. A value that went down (a
 * reset, or a wrap: the two cannot be told apart) starts again from it and adds nothing; an all-ones value at 8,
 * 16, 32 or 64 bits (a counter not measured, or saturated as OpenSM's performance manager leaves a 32-bit one) is no
 * count and no baseline; an increase no port could count in the time between the two reports ({@link
 * PortSpeedLimit}) adds nothing either. So a false rate never comes from a counter's own accidents, only a rate
 * lower than the true one. Bounded: at most {@link #STEPS} steps are kept, the oldest dropped first. Not
 * thread-safe: one owner.
 */
public final class PortErrorWindow {
    /** The tracked values: packets and the four counters of trouble, in this order. */
    static final PortCounter[] TRACKED = {PortCounter.RX_PACKETS, PortCounter.TX_PACKETS, PortCounter.RX_ERRORS,
            PortCounter.TX_ERRORS, PortCounter.RX_DROPS, PortCounter.TX_DROPS};
    /** Index in {@link #TRACKED} of the first counter of trouble. */
    static final int FIRST_TROUBLE = 2;
    /** Most steps kept. */
    static final int STEPS = 32;
    private static final long NONE = PortCounters.UNAVAILABLE;

    private final long[] baseline = new long[TRACKED.length];
    private long baselineNanos;
    private boolean started;
    /** Step i: its end, its span, then one rise per tracked value; a ring. */
    private final long[] ends = new long[STEPS];
    private final long[] spans = new long[STEPS];
    private final long[] rises = new long[STEPS * TRACKED.length];
    private int first;
    private int count;

    public PortErrorWindow() {
        Arrays.fill(baseline, NONE);
    }

    /**
     * Adds the port's values read at {@code atNanos} (monotonic): {@link PortCounters#FIELDS} values from
     * {@code offset} in {@code values}, in {@link PortCounter} order. A report no later than the last is ignored.
     */
    public void record(long atNanos, long[] values, int offset) {
        if (started && atNanos - baselineNanos <= 0) {
            return;
        }
        long span = started ? atNanos - baselineNanos : 0;
        long spanMs = span / 1_000_000;
        int slot = -1;
        if (started) {
            slot = (first + count) % STEPS;
            if (count == STEPS) {
                first = (first + 1) % STEPS;
            } else {
                count++;
            }
            ends[slot] = atNanos;
            spans[slot] = span;
        }
        for (int t = 0; t < TRACKED.length; t++) {
            long v = values[offset + TRACKED[t].ordinal()];
            long b = baseline[t];
            long rise = 0;
            if (sentinel(v)) {
                v = NONE;
            } else if (b != NONE && Long.compareUnsigned(v, b) >= 0 && !PortSpeedLimit.exceeds(TRACKED[t], v - b,
                    spanMs)) {
                rise = v - b;
            }
            baseline[t] = v;
            if (slot >= 0) {
                rises[slot * TRACKED.length + t] = rise;
            }
        }
        baselineNanos = atNanos;
        started = true;
    }

    /** Whether {@code v} is all ones at 8, 16, 32 or 64 bits: no count. */
    static boolean sentinel(long v) {
        return v == -1L || v == 0xFFFF_FFFFL || v == 0xFFFFL || v == 0xFFL;
    }

    /**
     * Sums the steps that ended within {@code windowNanos} before {@code nowNanos} into {@code out}: the time they
     * span (ns) at index 0, then the rise of each tracked value; returns {@code out}.
     */
    public long[] sum(long nowNanos, long windowNanos, long[] out) {
        Arrays.fill(out, 0, TRACKED.length + 1, 0);
        for (int i = 0; i < count; i++) {
            int s = (first + i) % STEPS;
            if (nowNanos - ends[s] >= windowNanos) {
                continue;
            }
            out[0] += spans[s];
            for (int t = 0; t < TRACKED.length; t++) {
                out[1 + t] += rises[s * TRACKED.length + t];
            }
        }
        return out;
    }

    /** Whether any step is kept. */
    public boolean hasSteps() {
        return count > 0;
    }
}
