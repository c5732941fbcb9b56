package org.fabricmanager.detector;

import java.time.Duration;
import java.util.Objects;

/**
 * The algorithm's timing and overlay, shared by every member of a ring.
 *
 * @param heartbeatInterval η, how often a member heartbeats its observer
 * @param suspicionTimeout  δ, how long an observer waits for a heartbeat before suspecting its emitter
 *                          (at least 2η so that one lost heartbeat is not a suspicion)
 * @param overlay           the broadcast overlay
 * @param pauseThreshold    how late a member's own timer may fire before the member assumes it was
 *                          paused itself: a late suspicion timer then gives one δ of slack instead of
 *                          suspecting, and a late heartbeat timer is logged
 */
public record RingParameters(Duration heartbeatInterval, Duration suspicionTimeout, Overlay overlay,
                             Duration pauseThreshold) {

    public RingParameters {
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        Objects.requireNonNull(suspicionTimeout, "suspicionTimeout");
        Objects.requireNonNull(overlay, "overlay");
        Objects.requireNonNull(pauseThreshold, "pauseThreshold");
        if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
            throw new IllegalArgumentException("heartbeat interval must be positive, got " + heartbeatInterval);
        }
        if (suspicionTimeout.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("suspicion timeout " + suspicionTimeout
                    + " must be at least twice the heartbeat interval " + heartbeatInterval);
        }
        if (pauseThreshold.isNegative() || pauseThreshold.isZero() || pauseThreshold.compareTo(suspicionTimeout) >= 0) {
            throw new IllegalArgumentException("pause threshold " + pauseThreshold
                    + " must be positive and below the suspicion timeout " + suspicionTimeout);
        }
    }

    /** Parameters with the pause threshold set to one heartbeat interval. */
    public static RingParameters of(Duration heartbeatInterval, Duration suspicionTimeout, Overlay overlay) {
        return new RingParameters(heartbeatInterval, suspicionTimeout, overlay, heartbeatInterval);
    }

    long etaNanos() {
        return heartbeatInterval.toNanos();
    }

    long deltaNanos() {
        return suspicionTimeout.toNanos();
    }

    long pauseThresholdNanos() {
        return pauseThreshold.toNanos();
    }
}
