package org.fabricmanager.detector;

import static org.fabricmanager.detector.RingMember.millis;

import org.fabricmanager.detector.message.Heartbeat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running ring member's heartbeats to its observer: one every η on a timer that keeps its period (a late timer
 * only shifts the next ones when it fell more than the pause threshold behind), and what a late timer says: it is
 * evidence for the member's own health, and a warning for the operator (past δ/2, when the observer may start
 * suspecting, at most once per 10 s). Each period also repeats what must reach the emitter: a NewObserver until
 * it is heard, a SUSPECT until it answers. Part of one {@link RingMember}, on the member's thread only.
 */
final class Heartbeats {
    private static final Logger log = LoggerFactory.getLogger(Heartbeats.class);

    private final RingMember member;
    private final int self;
    private final long eta;
    private final long delta;
    private final long pauseThreshold;
    private final SuspicionPolicy suspicion;
    private final EmitterWatch watch;
    private final RingTransport transport;
    private final DetectorMetrics metrics;
    private TimerHandle timer;
    private long due;
    private final LateWarnings lateWarnings;

    Heartbeats(RingMember member, int self, RingParameters parameters, SuspicionPolicy suspicion, EmitterWatch watch,
               MemberDependencies dependencies) {
        this.member = member;
        this.self = self;
        this.eta = parameters.etaNanos();
        this.delta = parameters.deltaNanos();
        this.pauseThreshold = parameters.pauseThresholdNanos();
        this.suspicion = suspicion;
        this.watch = watch;
        this.transport = dependencies.transport();
        this.metrics = dependencies.metrics();
        this.lateWarnings = dependencies.process() != null ? dependencies.process().lateWarnings() : new LateWarnings();
    }

    /** The member runs: the first period starts now. */
    void start() {
        due = transport.nanoTime() + eta;
        timer = transport.schedule(eta, this::onTimer);
    }

    void cancel() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /** Heartbeats the observer now, with this member's incarnation and view digest. */
    void send() {
        metrics.heartbeatSent();
        transport.send(member.observer(), new Heartbeat(self, member.incarnation(), member.viewDigest()));
    }

    private void onTimer() {
        timer = null;
        if (member.phase() != MemberPhase.RUNNING) {
            return;
        }
        long now = transport.nanoTime();
        long lateness = now - due;
        if (suspicion.timerFired(lateness, now) < 0 && suspicion.suspecting()) {
            // the verdict depends on the score: a forgiven point brings it forward (a later one is
            // found by the timer itself, which re-arms when it fires early)
            watch.rearmIfEarlier();
        }
        if (lateness > pauseThreshold) {
            late(lateness, now);
            due = now;
        }
        if (member.observer() != MembershipView.NONE) {
            send();
        }
        if (member.emitter() != MembershipView.NONE && !watch.emitterHeard()) {
            // The NewObserver was lost, went to a member that died meanwhile, or found it joining: repeat it.
            member.sendNewObserver();
        }
        suspicion.askAgain(now);
        due += eta;
        if (due <= now) {
            due = now + eta;
        }
        timer = transport.schedule(due - now, this::onTimer);
    }

    /**
     * An overloaded host makes every member late at once: warn about lateness the observer may notice (δ/2, when
     * it starts suspecting), at most once per 10 s for all the members of the process ({@link LateWarnings}).
     */
    private void late(long lateness, long now) {
        metrics.heartbeatLate();
        long suppressed = lateness > delta / 2 ? lateWarnings.admit(now) : -1;
        if (suppressed >= 0) {
            log.warn("member {}: heartbeat to observer {} is {} ms late (local pause or overload?); "
                    + "the observer may suspect this member{}", self, member.observer(), millis(lateness),
                    suppressed > 0 ? " (" + suppressed + " more late heartbeats since the last warning)" : "");
        } else {
            log.debug("member {}: heartbeat to observer {} is {} ms late", self, member.observer(), millis(lateness));
        }
    }
}
