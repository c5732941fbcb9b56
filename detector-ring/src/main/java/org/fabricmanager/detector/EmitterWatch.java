package org.fabricmanager.detector;

import static org.fabricmanager.detector.RingMember.NEVER;
import static org.fabricmanager.detector.RingMember.millis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ring member's watch over its emitter: when the emitter was last heard, its deadline (2δ for a new emitter, or
 * what is left of the start-up grace; δ once heard), and the suspicion timer that fires at the next check the
 * {@link SuspicionPolicy} names (the deadline, the start of a suspicion, the verdict). A timer that fires late
 * doubts the silence: without Lifeguard it gives the emitter one more period (the local-pause guard), with it one
 * more η, once per silence. At the verdict the {@link ViewMerger} declares the emitter dead. Heartbeats only move
 * the deadline, so a busy member schedules one timer per δ instead of one per heartbeat. Part of one
 * {@link RingMember}, on the member's thread only: the member says which member is the emitter, this class how
 * long it has been silent.
 */
final class EmitterWatch {
    private static final Logger log = LoggerFactory.getLogger(EmitterWatch.class);

    private final RingMember member;
    private final int self;
    private final long eta;
    private final long delta;
    private final long pauseThreshold;
    private final long startupGrace;
    private final ViewMerger views;
    private final SuspicionPolicy suspicion;
    private final RingTransport transport;
    private long lastHeard;
    private long deadline;
    /** Until then an emitter never heard from is not suspected (BOOTSTRAP start-up grace); NEVER: no grace. */
    private long graceUntil = NEVER;
    /** The emitter heartbeats this member (or was told nothing): no NewObserver to repeat. */
    private boolean heard;
    private TimerHandle timer;
    private long timerDue;
    /** The late-timer slack was given during the current silence of the emitter. */
    private boolean slackGiven;

    EmitterWatch(RingMember member, int self, RingParameters parameters, ViewMerger views, SuspicionPolicy suspicion,
                 RingTransport transport) {
        this.member = member;
        this.self = self;
        this.eta = parameters.etaNanos();
        this.delta = parameters.deltaNanos();
        this.pauseThreshold = parameters.pauseThresholdNanos();
        this.startupGrace = parameters.startupGraceNanos();
        this.views = views;
        this.suspicion = suspicion;
        this.transport = transport;
    }

    /** A bootstrap: emitters not heard yet are not suspected before the start-up grace has passed. */
    void startGrace(long now) {
        graceUntil = now + startupGrace;
    }

    /** A member that joins has no grace: the ring it joins is running. */
    void dropGrace() {
        graceUntil = NEVER;
    }

    /** See {@link RingMember#endStartupGrace()}. */
    void endStartupGrace() {
        if (graceUntil == NEVER) {
            return;
        }
        graceUntil = NEVER;
        if (member.phase() != MemberPhase.RUNNING || member.emitter() == MembershipView.NONE) {
            return;
        }
        long latest = transport.nanoTime() + 2 * delta;
        if (deadline > latest) {
            log.debug("member {}: start-up grace ended; emitter {} not heard yet, suspected in {} ms", self,
                    member.emitter(), millis(2 * delta));
            deadline = latest;
            rearm();
        }
    }

    /**
     * The member has a new emitter: it gets 2δ (or what is left of the start-up grace) before it can be suspected
     * (the slides' re-arm). {@code announced}: it was sent a NewObserver, repeated until it is heard.
     */
    void watchNew(long now, boolean announced) {
        slackGiven = false;
        lastHeard = now;
        // graceUntil is NEVER or passed except in a cold start, where the emitter may not run yet
        deadline = Math.max(now + 2 * delta, graceUntil);
        heard = !announced;
        arm();
    }

    /** The member has no emitter any more (every other member is dead). */
    void stopWatching() {
        slackGiven = false;
        cancel();
    }

    void cancel() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /** Whether the emitter was heard since it was announced a NewObserver. */
    boolean emitterHeard() {
        return heard;
    }

    /** The emitter was heard (a heartbeat, or an answer to a suspicion): its silence counts from now. */
    void heardAt(long now) {
        slackGiven = false;
        lastHeard = now;
        deadline = now + delta;
        heard = true;
        if (timer != null && timerDue > suspicion.suspicionStart(deadline)) {
            // armed for a new emitter's 2δ or the start-up grace: once heard, silence counts from δ
            rearm();
        }
    }

    /** Moves the timer to the next check if that is now earlier than the timer (the score fell, a helper confirmed). */
    void rearmIfEarlier() {
        if (timer != null && suspicion.nextCheck(deadline) < timerDue) {
            rearm();
        }
    }

    private void arm() {
        if (timer != null || member.emitter() == MembershipView.NONE) {
            return;
        }
        long now = transport.nanoTime();
        long delay = Math.max(0, suspicion.nextCheck(deadline) - now);
        timerDue = now + delay;
        timer = transport.schedule(delay, this::onTimer);
    }

    private void rearm() {
        cancel();
        arm();
    }

    private void onTimer() {
        timer = null;
        int emitter = member.emitter();
        if (member.phase() != MemberPhase.RUNNING || emitter == MembershipView.NONE) {
            return;
        }
        long now = transport.nanoTime();
        long lateness = now - timerDue;
        suspicion.timerFired(lateness, now);
        if (now < suspicion.suspicionStart(deadline)) {
            arm();
            return;
        }
        if (lateness > pauseThreshold && !suspicion.lifeguard()) {
            // This member itself did not run for a while: the emitter's heartbeats may be waiting to be
            // read, so the silence proves nothing yet. One more period decides.
            log.warn("member {}: suspicion timer fired {} ms late (was this process paused?); "
                    + "gives emitter {} one more period before suspecting it", self, millis(lateness), emitter);
            deadline = now + delta;
            arm();
            return;
        }
        if (lateness > pauseThreshold && !slackGiven) {
            // The same doubt with local health: look again after η, by when anything waiting in the socket
            // has been read. Once per silence: a member that stays late is covered by its score, which is
            // bounded, where repeated slack would never let it declare anyone dead.
            slackGiven = true;
            log.debug("member {}: suspicion timer fired {} ms late; looks again at emitter {} in one heartbeat period",
                    self, millis(lateness), emitter);
            timerDue = now + eta;
            timer = transport.schedule(eta, this::onTimer);
            return;
        }
        if (suspicion.lifeguard() && !suspicion.suspecting()) {
            suspicion.startSuspicion(now, now - lastHeard);
            arm();
            return;
        }
        if (suspicion.lifeguard() && now < suspicion.verdictTime(deadline)) {
            arm();
            return;
        }
        // the verdict: marks the emitter dead, walks back to the next live emitter and sends it NewObserver
        suspicion.endSuspicion();
        views.declareDead(emitter, now - lastHeard);
    }
}
