package org.fabricmanager.agent;

import java.util.Random;

/**
 * Reconnection delays: a ceiling growing exponentially from {@code initialMs}, capped at {@code maxMs},
 * and each delay drawn uniformly from [0, ceiling] ("full jitter"). Many agents that lost the daemon at
 * the same moment (a daemon restart) or were turned away together (its TLS handshake queue full) then
 * come back spread over the whole window rather than in waves, so a reconnect storm thins out instead of
 * repeating; full jitter spreads them more than "equal jitter" ([ceiling/2, ceiling]) for the same
 * cap. Not thread-safe: one per agent, used on the agent's event loop.
 */
public final class Backoff {
    private final long initialMs;
    private final long maxMs;
    private final Random random;
    private int attempt;
    /** Delays still held within {@link #returnCapMs} after the peer said it is stopping ({@link #expectReturn}). */
    private int returnProbes;
    private long returnCapMs;

    public Backoff(long initialMs, long maxMs, Random random) {
        if (initialMs < 1 || maxMs < initialMs) {
            throw new IllegalArgumentException("backoff needs 1 <= initial <= max, got " + initialMs + " and " + maxMs);
        }
        this.initialMs = initialMs;
        this.maxMs = maxMs;
        this.random = random;
    }

    /** The delay before the next attempt, in [0, min(maxMs, initialMs * 2^attempts)]; each call counts one more failed attempt. */
    public long nextDelayMs() {
        int shift = Math.min(attempt, 62);
        // initialMs << shift only when it stays within maxMs: it can neither overflow nor wrap
        long ceiling = initialMs > (maxMs >>> shift) ? maxMs : initialMs << shift;
        if (returnProbes > 0) {
            returnProbes--;
            ceiling = Math.min(ceiling, returnCapMs);
        }
        if (attempt < Integer.MAX_VALUE) {
            attempt++;
        }
        // in double, so that ceiling + 1 cannot overflow; the min keeps a rounded-up product within the ceiling
        return Math.min(ceiling, (long) (random.nextDouble() * ((double) ceiling + 1.0)));
    }

    /**
     * The peer said it is stopping (a daemon restart, as a rule, back within seconds): the next {@code probes} delays
     * stay within [0, {@code capMs}] while the ceiling keeps growing underneath, so that the attempts refused while
     * it is down do not leave the agent waiting up to the cap once it is back. After them, or after a
     * {@link #reset}, delays are as before: a peer stopped for longer is not probed at that rate for good.
     */
    public void expectReturn(long capMs, int probes) {
        if (capMs < 0 || probes < 0) {
            throw new IllegalArgumentException("a return needs capMs >= 0 and probes >= 0, got " + capMs + " and " + probes);
        }
        returnCapMs = capMs;
        returnProbes = probes;
    }

    /** Starts over after a successful connection. */
    public void reset() {
        attempt = 0;
        returnProbes = 0;
    }

    /** Failed attempts since the last reset. */
    public int attempts() {
        return attempt;
    }
}
