package org.fabricmanager.daemon.faults;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.fabricmanager.southbound.SwitchSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds how many ring members each session may ask addresses for with DETECTOR_LOOKUP: a token bucket per
 * session, one token per member asked. Every lookup costs the control thread a directory walk and the session a
 * DETECTOR_PEERS frame, so without a bound one hostile or broken agent could keep the daemon answering. A lookup
 * over the budget is dropped before it reaches the control queue, counted ({@value #METER}) and logged at most
 * once per 10 s; its agent's member retries after δ like after a lost datagram (docs/protocol.md 3.13). Called on
 * the sessions' I/O threads; thread-safe.
 */
public final class LookupLimiter {
    private static final Logger LOG = LoggerFactory.getLogger(LookupLimiter.class);
    /** Counter: DETECTOR_LOOKUPs dropped because their session was over its budget. */
    public static final String METER = "fabric.detector.lookups.refused";
    /**
     * A window agent asks at start for its failure-free overlay neighbours beyond its window (about 2 log2 n: 26
     * at 5,120 switches) and then for any other member at most once per δ; a burst of 512 members and 128 per
     * second is well above what a legitimate agent asks even while failures reshape the overlay.
     */
    public static final int BURST_MEMBERS = 512;
    public static final int MEMBERS_PER_SECOND = 128;
    private static final long LOG_INTERVAL_NANOS = 10_000_000_000L;

    private final ConcurrentHashMap<Long, TokenBucket> buckets = new ConcurrentHashMap<>();
    private final int burst;
    private final int perSecond;
    private final LongSupplier nanoTime;
    private final Counter refused;
    private final Object logLock = new Object();
    private long lastLogNanos;
    private boolean logged;
    private long unlogged;

    public LookupLimiter(MeterRegistry registry) {
        this(registry, BURST_MEMBERS, MEMBERS_PER_SECOND, System::nanoTime);
    }

    LookupLimiter(MeterRegistry registry, int burst, int perSecond, LongSupplier nanoTime) {
        this.burst = burst;
        this.perSecond = perSecond;
        this.nanoTime = nanoTime;
        this.refused = Counter.builder(METER).description("DETECTOR_LOOKUPs dropped: their session asked too often")
                .register(registry);
    }

    /** Whether {@code session} may have {@code members} addresses looked up now; false drops the lookup (counted). */
    public boolean admit(SwitchSession session, int members) {
        long now = nanoTime.getAsLong();
        TokenBucket bucket = buckets.computeIfAbsent(session.id(), id -> new TokenBucket(burst, perSecond, now));
        if (bucket.take(members, now)) {
            return true;
        }
        refused.increment();
        synchronized (logLock) {
            if (logged && now - lastLogNanos < LOG_INTERVAL_NANOS) {
                unlogged++;
            } else {
                LOG.warn("failure detector: DETECTOR_LOOKUP from {} dropped: more than {} members at once or {} per second "
                        + "asked{}", session, burst, perSecond,
                        unlogged == 0 ? "" : " (" + unlogged + " more lookups dropped since the last such line)");
                logged = true;
                lastLogNanos = now;
                unlogged = 0;
            }
        }
        return false;
    }

    /** The session closed: its budget goes with it. */
    public void forget(SwitchSession session) {
        buckets.remove(session.id());
    }

    /** Sessions with a budget, for tests. */
    int sessions() {
        return buckets.size();
    }

    /** A bucket of up to {@code capacity} tokens refilled at {@code perSecond}; starts full. */
    static final class TokenBucket {
        private final double capacity;
        private final double perNano;
        private double tokens;
        private long lastNanos;

        TokenBucket(int capacity, int perSecond, long nowNanos) {
            this.capacity = capacity;
            this.perNano = perSecond / 1e9;
            this.tokens = capacity;
            this.lastNanos = nowNanos;
        }

        /** Takes {@code n} tokens if there are that many (after refilling to {@code nowNanos}). */
        synchronized boolean take(int n, long nowNanos) {
            if (nowNanos > lastNanos) {
                tokens = Math.min(capacity, tokens + (nowNanos - lastNanos) * perNano);
                lastNanos = nowNanos;
            }
            if (tokens < n) {
                return false;
            }
            tokens -= n;
            return true;
        }
    }
}
