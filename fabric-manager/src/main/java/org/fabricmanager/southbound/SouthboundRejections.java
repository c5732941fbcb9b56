package org.fabricmanager.southbound;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.SocketAddress;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the peers the southbound refuses ({@link Rejection}) in the counter {@value #METER} tagged
 * {@code reason}, and reports them in the log at most once per interval: one WARN line with the counts
 * by reason and the last refused peer, so that a scan or a flood of bad certificates cannot flood the
 * log. Thread-safe: called from every I/O thread.
 */
public final class SouthboundRejections {
    /** Counter of refused peers, tagged {@code reason}. */
    public static final String METER = "fabric.southbound.rejected";
    /** Default interval between two log lines. */
    public static final long DEFAULT_INTERVAL_MS = 10_000;
    private static final Logger LOG = LoggerFactory.getLogger(SouthboundRejections.class);
    /** Set on a connection once it is counted: the handlers that may refuse it count it once between them. */
    private static final AttributeKey<Rejection> COUNTED = AttributeKey.valueOf(SouthboundRejections.class, "counted");

    private final Map<Rejection, Counter> counters = new EnumMap<>(Rejection.class);
    private final long intervalMs;
    private final LongSupplier clockMs;
    private final ScheduledExecutorService flusher;

    // guarded by this
    private final long[] pending = new long[Rejection.values().length];
    private final long[] totals = new long[Rejection.values().length];
    private long lastLogMs = Long.MIN_VALUE / 2;
    private String lastPeer;
    private boolean flushScheduled;

    /**
     * @param registry where the counter lives ({@code null}: counted in memory only)
     * @param flusher  runs the delayed log line of a burst ({@code null}: the line waits for the next rejection)
     */
    public SouthboundRejections(MeterRegistry registry, long intervalMs, LongSupplier clockMs,
                                ScheduledExecutorService flusher) {
        this.intervalMs = intervalMs;
        this.clockMs = clockMs;
        this.flusher = flusher;
        for (Rejection r : Rejection.values()) {
            counters.put(r, registry == null ? null : Counter.builder(METER).tag("reason", r.tag())
                    .description("southbound peers refused before becoming a switch's session").register(registry));
        }
    }

    /** Counted in memory only, logged at most every 10 s (tests, embedded use). */
    public static SouthboundRejections unmetered() {
        return new SouthboundRejections(null, DEFAULT_INTERVAL_MS, System::currentTimeMillis, null);
    }

    /**
     * Records the refusal of {@code connection}, unless it was counted already (a connection that the admission
     * queue timed out also fails its TLS handshake, for example); true when this call counted it.
     */
    public boolean record(Channel connection, Rejection reason, String detail) {
        if (connection.attr(COUNTED).setIfAbsent(reason) != null) {
            return false;
        }
        record(reason, connection.remoteAddress(), detail);
        return true;
    }

    /** Records one refused peer. */
    public void record(Rejection reason, SocketAddress peer, String detail) {
        Counter c = counters.get(reason);
        if (c != null) {
            c.increment();
        }
        String line = null;
        synchronized (this) {
            totals[reason.ordinal()]++;
            pending[reason.ordinal()]++;
            lastPeer = peer + " " + reason.tag() + ": " + detail;
            long now = clockMs.getAsLong();
            if (now - lastLogMs >= intervalMs) {
                line = drain(now);
            } else if (!flushScheduled && flusher != null) {
                flushScheduled = true;
                flusher.schedule(this::flush, lastLogMs + intervalMs - now, TimeUnit.MILLISECONDS);
            }
        }
        if (line != null) {
            LOG.warn(line);
        }
    }

    /** Logs what was refused since the last line, if anything. */
    public void flush() {
        String line;
        synchronized (this) {
            flushScheduled = false;
            line = drain(clockMs.getAsLong());
        }
        if (line != null) {
            LOG.warn(line);
        }
    }

    /** Peers refused for {@code reason} since construction. */
    public synchronized long count(Rejection reason) {
        return totals[reason.ordinal()];
    }

    private String drain(long now) {
        long sum = 0;
        StringBuilder by = new StringBuilder();
        for (Rejection r : Rejection.values()) {
            long n = pending[r.ordinal()];
            if (n > 0) {
                by.append(by.length() == 0 ? "" : ", ").append(r.tag()).append(' ').append(n);
                sum += n;
                pending[r.ordinal()] = 0;
            }
        }
        if (sum == 0) {
            return null;
        }
        lastLogMs = now;
        return "southbound: refused " + sum + (sum == 1 ? " peer" : " peers") + " (" + by + "); last: " + lastPeer
                + " (at most one such line per " + intervalMs / 1000 + " s; every one is counted in " + METER + ")";
    }
}
