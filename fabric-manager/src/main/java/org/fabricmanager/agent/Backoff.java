package org.fabricmanager.agent;

import java.util.Random;

/**
 * Reconnection delays: exponential growth from {@code initialMs}, capped at {@code maxMs}, each delay
 * multiplied by a random factor in [0.5, 1.0] ("equal jitter") so that many agents that lost the
 * daemon at the same moment do not reconnect in lock step. Not thread-safe: one per agent, used on
 * the agent's event loop.
 */
public final class Backoff {
    private final long initialMs;
    private final long maxMs;
    private final Random random;
    private int attempt;

    public Backoff(long initialMs, long maxMs, Random random) {
        if (initialMs < 1 || maxMs < initialMs) {
            throw new IllegalArgumentException("backoff needs 1 <= initial <= max, got " + initialMs + " and " + maxMs);
        }
        this.initialMs = initialMs;
        this.maxMs = maxMs;
        this.random = random;
    }

    /** The delay before the next attempt; each call counts one more failed attempt. */
    public long nextDelayMs() {
        long ceiling = attempt >= 62 ? maxMs : Math.min(maxMs, initialMs << Math.min(attempt, 30));
        attempt++;
        long half = ceiling / 2;
        return half + (long) (random.nextDouble() * (ceiling - half + 1));
    }

    /** Starts over after a successful connection. */
    public void reset() {
        attempt = 0;
    }

    /** Failed attempts since the last reset. */
    public int attempts() {
        return attempt;
    }
}
