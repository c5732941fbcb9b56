package org.fabricmanager.detector;

import java.time.Duration;
import java.util.Objects;
import org.fabricmanager.detector.overlay.Overlay;

/**
 * The algorithm's timing and overlay, shared by every member of a ring, plus two member-local
 * settings, the start-up grace and whether the member uses local health and refutable suspicion.
 *
 * @param heartbeatInterval η, how often a member heartbeats its observer
 * @param suspicionTimeout  δ, how long an observer waits for a heartbeat before suspecting its emitter
 *                          (at least 2η so that one lost heartbeat is not a suspicion)
 * @param overlay           the broadcast overlay
 * @param pauseThreshold    how late a member's own timer may fire before the member assumes it was
 *                          paused itself: a late suspicion timer then gives one δ of slack instead of
 *                          suspecting, and a late heartbeat timer is logged
 * @param startupGrace      after a {@link StartMode#BOOTSTRAP} start, how long the member waits for the first
 *                          heartbeat of an emitter it has never heard from (the slides' 2δ re-arm otherwise).
 *                          Members of a cold-started ring start one by one as their configurations arrive;
 *                          the grace covers that spread for a member whose emitter is configured last (the
 *                          daemon's own member). An emitter once heard is suspected after δ as usual, so a
 *                          failure of a running member is found on time even within the grace. Local to one
 *                          member; at least 2δ ({@link RingMember#endStartupGrace()} ends it early)
 * @param lifeguard         local health and refutable suspicion (docs/detector.md, "Lifeguard: a ring that does
 *                          not accuse when it is the one that is late"): the member suspects a silent emitter
 *                          after δ/2, asks it to refute and two helpers to check it, and declares it dead
 *                          after δ·(1 + its own lateness score) of silence unless it answered, shortened
 *                          down to δ by the helpers' confirmations. Local to one member; false gives the
 *                          SC'16 behaviour (dead after δ of silence, no suspicion phase) for comparison
 * @param witness           the member told whenever a member starts suspecting its emitter (a {@code NOTICE}, sent
 *                          with the suspect's {@code SUSPECT}), or -1 for none. In a fabric manager's ring it is
 *                          member 0, the daemon's own member: the daemon then asks the suspect's agent for a sign of
 *                          life and prepares the routing without it during the second half of δ, instead of after
 *                          the verdict. The witness takes a notice only from the suspect's observer in its view.
 *                          The same on every member of a ring (a member whose witness differs ignores notices)
 */
public record RingParameters(Duration heartbeatInterval, Duration suspicionTimeout, Overlay overlay,
                             Duration pauseThreshold, Duration startupGrace, boolean lifeguard, int witness) {
    /**
     * The highest local health score with Lifeguard: a member that finds itself late declares its emitter dead after
     * at most δ·(1 + this) of silence, so up to this many δ later than a healthy member, δ/2 + this·δ after it began
     * suspecting the emitter and told the witness. A witness that acts on the notice waits that long for the verdict.
     */
    public static final int MAX_HEALTH_SCORE = 3;

    public RingParameters {
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        Objects.requireNonNull(suspicionTimeout, "suspicionTimeout");
        Objects.requireNonNull(overlay, "overlay");
        Objects.requireNonNull(pauseThreshold, "pauseThreshold");
        Objects.requireNonNull(startupGrace, "startupGrace");
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
        if (startupGrace.compareTo(suspicionTimeout.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("start-up grace " + startupGrace
                    + " must be at least twice the suspicion timeout " + suspicionTimeout);
        }
        if (witness < -1) {
            throw new IllegalArgumentException("witness must be a member index or -1 for none, got " + witness);
        }
    }

    /** Parameters without a witness. */
    public RingParameters(Duration heartbeatInterval, Duration suspicionTimeout, Overlay overlay, Duration pauseThreshold,
                          Duration startupGrace, boolean lifeguard) {
        this(heartbeatInterval, suspicionTimeout, overlay, pauseThreshold, startupGrace, lifeguard, -1);
    }

    /** Parameters with local health and refutable suspicion on. */
    public RingParameters(Duration heartbeatInterval, Duration suspicionTimeout, Overlay overlay, Duration pauseThreshold,
                          Duration startupGrace) {
        this(heartbeatInterval, suspicionTimeout, overlay, pauseThreshold, startupGrace, true);
    }

    /** Parameters without a start-up grace beyond the usual 2δ, with local health and refutable suspicion on. */
    public RingParameters(Duration heartbeatInterval, Duration suspicionTimeout, Overlay overlay, Duration pauseThreshold) {
        this(heartbeatInterval, suspicionTimeout, overlay, pauseThreshold, suspicionTimeout.multipliedBy(2));
    }

    /** The same parameters with another start-up grace. */
    public RingParameters withStartupGrace(Duration grace) {
        return new RingParameters(heartbeatInterval, suspicionTimeout, overlay, pauseThreshold, grace, lifeguard,
                witness);
    }

    /** The same parameters with local health and refutable suspicion on or off. */
    public RingParameters withLifeguard(boolean on) {
        return new RingParameters(heartbeatInterval, suspicionTimeout, overlay, pauseThreshold, startupGrace, on, witness);
    }

    /** The same parameters with another witness of suspicions (a member index, or -1 for none). */
    public RingParameters withWitness(int member) {
        return new RingParameters(heartbeatInterval, suspicionTimeout, overlay, pauseThreshold, startupGrace, lifeguard,
                member);
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

    long startupGraceNanos() {
        return startupGrace.toNanos();
    }
}
