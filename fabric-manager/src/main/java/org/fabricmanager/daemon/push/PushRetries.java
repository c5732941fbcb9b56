package org.fabricmanager.daemon.push;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retries and timeouts of an {@link LftPusher}: each retry doubles a switch's ACK timeout, up to 32 times the
 * configured one, and after {@code push.retries} failures in a row the switch is reported as failing but still
 * retried: a slow agent converges, a session that is really dead is closed by the southbound idle timeout, never
 * by the pusher. A batch the switch answered with an error (it refused the commit, for example APPLY_FAILED when its
 * kernel did not take the table) was answered at once, so its retry waits: the first retry goes at once, the next
 * after {@link #BACKOFF_BASE_MS}, each further one twice as long up to {@link #BACKOFF_MAX_MS}; an acknowledgement
 * ends the backoff, and so does a reconnect (a new session starts with no failures).
 */
final class PushRetries {
    /** The pusher's logger: its retry lines are the pusher's to operators. */
    private static final Logger LOG = LoggerFactory.getLogger(LftPusher.class);
    /** Each retry doubles the ACK timeout, up to 32 times the configured one. */
    private static final int MAX_TIMEOUT_DOUBLINGS = 5;
    /** The wait before the second retry in a row of a refused batch. */
    static final long BACKOFF_BASE_MS = 50;
    /** The longest wait before the retry of a refused batch: a switch that always refuses gets one push in this. */
    static final long BACKOFF_MAX_MS = 5_000;

    private final long ackTimeoutMs;
    private final int retries;
    private final StatusCounts counts;
    private final PushAccounting accounting;

    PushRetries(long ackTimeoutMs, int retries, StatusCounts counts, PushAccounting accounting) {
        this.ackTimeoutMs = ackTimeoutMs;
        this.retries = retries;
        this.counts = counts;
        this.accounting = accounting;
    }

    /** The ACK timeout of the next batch to {@code sp}, after its failures in a row. */
    long timeoutMs(SwitchPush sp) {
        return ackTimeoutMs << Math.min(sp.attempts, MAX_TIMEOUT_DOUBLINGS);
    }

    /**
     * How long the retry of {@code sp}'s batch waits after its failures in a row, the last of them {@code refused}
     * (answered with an error or a wrong acknowledgement) or not (no answer within the timeout, already waited for).
     */
    static long backoffMs(int attempts, boolean refused) {
        if (!refused || attempts <= 1) {
            return 0;
        }
        return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS << Math.min(attempts - 2, 20));
    }

    /** {@code sp} acknowledged its batch: its failures in a row end. */
    void succeeded(SwitchPush sp) {
        sp.attempts = 0;
        counts.failing(sp, false);
        sp.lastError = null;
    }

    /**
     * {@code sp}'s batch cannot reach it now ({@code why}: its manager, OpenSM, is lost): failing at once, tried again
     * after the longest backoff.
     *
     * @return how long the retry waits
     */
    long unreachable(SwitchPush sp, String why) {
        if (!sp.failing) {
            LOG.warn("push to {} cannot reach the switch ({}); failing until it can, tried every {} ms", sp, why,
                    BACKOFF_MAX_MS);
        }
        sp.attempts = Math.max(sp.attempts, retries) + 1;
        counts.failing(sp, true);
        sp.lastError = why;
        return BACKOFF_MAX_MS;
    }

    /**
     * {@code sp}'s batch failed for {@code why}: counted, and failing after {@code push.retries} in a row.
     *
     * @param refused the switch answered (an error or a wrong acknowledgement) rather than not at all
     * @return how long the retry waits ({@link #backoffMs})
     */
    long failed(SwitchPush sp, boolean refused, String why) {
        sp.attempts++;
        counts.failing(sp, sp.attempts > retries);
        sp.retries++;
        sp.lastError = why;
        accounting.retried();
        long nextTimeout = timeoutMs(sp);
        long backoff = backoffMs(sp.attempts, refused);
        if (sp.attempts <= retries) {
            LOG.warn("push to {} not confirmed ({}), retry {}/{}{} with a {} ms timeout", sp, why, sp.attempts, retries,
                    backoff == 0 ? "" : " in " + backoff + " ms", nextTimeout);
        } else if (sp.attempts == retries + 1) {
            LOG.error("push to {} failed {} times (last: {}); the switch stays out of sync, retrying{} with a {} ms timeout",
                    sp, sp.attempts, why, backoff == 0 ? "" : " in " + backoff + " ms (doubling up to " + BACKOFF_MAX_MS
                            + " ms)", nextTimeout);
        } else {
            LOG.debug("push to {} failed again ({}), attempt {}, retry in {} ms", sp, why, sp.attempts, backoff);
        }
        return backoff;
    }
}
