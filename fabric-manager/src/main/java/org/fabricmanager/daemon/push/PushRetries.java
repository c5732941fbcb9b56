package org.fabricmanager.daemon.push;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retries and timeouts of an {@link LftPusher}: each retry doubles a switch's ACK timeout, up to 32 times the
 * configured one, and after {@code push.retries} failures in a row the switch is reported as failing but still
 * retried: a slow agent converges, a session that is really dead is closed by the southbound idle timeout, never
 * by the pusher.
 */
final class PushRetries {
    /** The pusher's logger: its retry lines are the pusher's to operators. */
    private static final Logger LOG = LoggerFactory.getLogger(LftPusher.class);
    /** Each retry doubles the ACK timeout, up to 32 times the configured one. */
    private static final int MAX_TIMEOUT_DOUBLINGS = 5;

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

    /** {@code sp} acknowledged its batch: its failures in a row end. */
    void succeeded(SwitchPush sp) {
        sp.attempts = 0;
        counts.failing(sp, false);
        sp.lastError = null;
    }

    /** {@code sp}'s batch failed for {@code why}: counted, and failing after {@code push.retries} in a row. */
    void failed(SwitchPush sp, String why) {
        sp.attempts++;
        counts.failing(sp, sp.attempts > retries);
        sp.retries++;
        sp.lastError = why;
        accounting.retried();
        long nextTimeout = timeoutMs(sp);
        if (sp.attempts <= retries) {
            LOG.warn("push to {} not confirmed ({}), retry {}/{} with a {} ms timeout", sp, why, sp.attempts, retries,
                    nextTimeout);
        } else if (sp.attempts == retries + 1) {
            LOG.error("push to {} failed {} times (last: {}); the switch stays out of sync, retrying with a {} ms timeout",
                    sp, sp.attempts, why, nextTimeout);
        } else {
            LOG.debug("push to {} failed again ({}), attempt {}", sp, why, sp.attempts);
        }
    }
}
