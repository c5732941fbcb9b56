package org.fabricmanager.daemon.rest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.SocketAddress;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the requests the REST server refuses before any endpoint sees them (malformed, too long) in
 * the counter {@value #METER} tagged {@code status}, and reports them in the log at most once per
 * interval, with the counts since the last line and the last peer, so that a flood of bad requests
 * cannot flood the log. Thread-safe (every REST I/O thread records).
 */
public final class RestRejections {
    /** Counter of refused requests, tagged {@code status}. */
    public static final String METER = "fabric.rest.rejected";
    private static final Logger LOG = LoggerFactory.getLogger(RestRejections.class);

    private final MeterRegistry registry;
    private final Map<Integer, Counter> counters = new ConcurrentHashMap<>();
    private final long intervalMs;
    private final LongSupplier clockMs;

    // guarded by this
    private final Map<Integer, Long> sinceLastLine = new TreeMap<>();
    private long lastLineMs = Long.MIN_VALUE / 2;
    private long total;

    /** @param registry where the counter lives ({@code null}: counted in memory only) */
    public RestRejections(MeterRegistry registry, long intervalMs, LongSupplier clockMs) {
        this.registry = registry;
        this.intervalMs = intervalMs;
        this.clockMs = clockMs;
    }

    /** Records one refused request; logs a WARN line if none was logged in the last interval. */
    void record(int status, SocketAddress peer) {
        if (registry != null) {
            counters.computeIfAbsent(status, s -> Counter.builder(METER).tag("status", Integer.toString(s))
                    .description("REST requests refused before reaching an endpoint").register(registry)).increment();
        }
        String line = null;
        synchronized (this) {
            total++;
            sinceLastLine.merge(status, 1L, Long::sum);
            long now = clockMs.getAsLong();
            if (now - lastLineMs >= intervalMs) {
                line = "REST refused " + sinceLastLine + " (by status) since the last such line, " + total
                        + " in all; last from " + peer;
                sinceLastLine.clear();
                lastLineMs = now;
            }
        }
        if (line != null) {
            LOG.warn(line);
        }
    }

    /** Refused requests so far. */
    public synchronized long total() {
        return total;
    }
}
