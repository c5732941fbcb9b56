package org.fabricmanager.detector;

import static org.fabricmanager.detector.RingMember.NEVER;
import static org.fabricmanager.detector.RingMember.millis;

import java.util.ArrayDeque;
import org.fabricmanager.detector.message.DetectorEvent.MemberSuspected;
import org.fabricmanager.detector.message.Suspicion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ring member's suspicion policy, after Lifeguard (Dadgar et al., 2018): its {@link LocalHealth} score (and its
 * process's) that widens its own timeout when it is the late one, the refutable suspicion of its emitter with the
 * helpers asked to confirm it, when the verdict falls, the checks it runs for other observers, the notices to the
 * ring's witness, and whether a suspicion of the member itself calls for a refutation. The member's suspicion
 * timer asks it when to look and what to do; with Lifeguard off it only passes the SC'16 deadline through. Part
 * of one {@link RingMember}, on the member's thread only: it holds the suspicion state, the member the rest.
 */
final class SuspicionPolicy {
    private static final Logger log = LoggerFactory.getLogger(SuspicionPolicy.class);
    private static final int NONE = MembershipView.NONE;
    /** Highest local health score: a member that finds itself late waits up to 4δ before a verdict. */
    static final int MAX_HEALTH_SCORE = RingParameters.MAX_HEALTH_SCORE;
    /** Members an observer asks to check a suspect (SWIM's k). */
    static final int HELPERS = 2;
    /** Checks a helper runs at once for other observers; more requests are ignored (bounded state). */
    static final int MAX_PENDING_CHECKS = 8;
    /** Views store incarnations shifted by one bit and the codec refuses more: a refutation stops here. */
    static final long MAX_INCARNATION = 1L << 61;

    private final RingMember member;
    private final int self;
    private final MembershipView view;
    private final RingTransport transport;
    private final DetectorMetrics metrics;
    private final boolean lifeguard;
    private final long eta;
    private final long delta;
    /** The member told of each suspicion this member starts ({@link RingParameters#witness()}), or NONE. */
    private final int witness;
    private final LocalHealth health;
    /** The lateness shared with the other members of this process, or null (alone in it, or Lifeguard off). */
    private final ProcessHealth process;
    private final ArrayDeque<PendingCheck> pendingChecks = new ArrayDeque<>();
    /** When this member started suspecting its emitter (asked it to refute), or NEVER. */
    private long suspectingSince = NEVER;
    private long suspectingIncarnation;
    private int helpersAsked;
    private final int[] confirmers = new int[HELPERS];
    private int confirmations;

    /**
     * @param view         the member's view, read only here
     * @param dependencies the member's transport, meters and process (its listener is reached through the member)
     */
    SuspicionPolicy(RingMember member, int self, int size, MembershipView view, RingParameters parameters,
                    MemberDependencies dependencies) {
        this.member = member;
        this.self = self;
        this.view = view;
        this.transport = dependencies.transport();
        this.metrics = dependencies.metrics();
        this.lifeguard = parameters.lifeguard();
        this.eta = parameters.etaNanos();
        this.delta = parameters.deltaNanos();
        this.witness = parameters.witness() < size ? parameters.witness() : NONE;
        // a timer later than half a heartbeat period is evidence; one calm δ forgives a point
        this.health = new LocalHealth(lifeguard ? MAX_HEALTH_SCORE : 0, Math.max(1, eta / 2), delta);
        this.process = lifeguard ? dependencies.process() : null;
    }

    /** Whether Lifeguard is on: without it the member declares a silent emitter dead at the SC'16 deadline. */
    boolean lifeguard() {
        return lifeguard;
    }

    /** This member's own local health score. */
    int healthScore() {
        return health.score();
    }

    /** Whether this member currently suspects its emitter (asked it to refute, no verdict yet). */
    boolean suspecting() {
        return suspectingSince != NEVER;
    }

    /** The suspicion of the emitter ends without a refutation: a verdict, or another emitter. */
    void endSuspicion() {
        suspectingSince = NEVER;
    }

    /** The member stops running or rejoins: the checks for other observers and the suspicion end. */
    void cancel() {
        for (PendingCheck c : pendingChecks) {
            c.timer.cancel();
        }
        pendingChecks.clear();
        suspectingSince = NEVER;
    }

    /** The member stops for good: its score leaves the health gauge shared by the members of a registry. */
    void stopped() {
        metrics.healthChanged(-health.score());
    }

    /**
     * One of this member's timers fired {@code lateness} late: evidence for its own health and its process's.
     * Returns the change of its own score (already counted in the meters).
     */
    int timerFired(long lateness, long now) {
        if (process != null) {
            process.timerFired(lateness, health.slipThreshold(), delta, now);
        }
        int change = health.timerFired(lateness, now);
        metrics.healthChanged(change);
        return change;
    }

    /**
     * When the suspicion timer must next look, given the emitter's SC'16 {@code deadline}: that deadline without
     * Lifeguard; with it, the start of the suspicion (δ/2 before that deadline), then the verdict.
     */
    long nextCheck(long deadline) {
        if (!lifeguard) {
            return deadline;
        }
        return suspectingSince == NEVER ? suspicionStart(deadline) : verdictTime(deadline);
    }

    /** When a silent emitter starts being suspected: δ/2 before its {@code deadline} with Lifeguard, else at it. */
    long suspicionStart(long deadline) {
        return lifeguard ? deadline - delta / 2 : deadline;
    }

    /**
     * The verdict: δ·(1 + score) of silence, where the part above δ shrinks as helpers confirm (Lifeguard's
     * dynamic suspicion, by log(C + 1) / log(K + 1)) and vanishes when every helper asked has confirmed. A
     * healthy member (score 0) therefore declares a silent emitter dead after δ, the SC'16 bound, whatever
     * the helpers say; never before.
     */
    long verdictTime(long deadline) {
        long extra = delta * score(transport.nanoTime());
        if (extra > 0 && helpersAsked > 0 && confirmations > 0) {
            double done = Math.log(confirmations + 1) / Math.log(helpersAsked + 1);
            extra = (long) (extra * Math.max(0, 1 - done));
        }
        return deadline + extra;
    }

    /**
     * Silence of δ/2 ({@code silentFor}): the emitter is asked to refute, and up to {@value #HELPERS} helpers (this
     * member's observer and the suspect's own emitter, whichever are alive and distinct) to check it.
     */
    void startSuspicion(long now, long silentFor) {
        int emitter = member.emitter();
        long incarnation = member.incarnation();
        suspectingSince = now;
        suspectingIncarnation = view.incarnation(emitter);
        confirmations = 0;
        helpersAsked = 0;
        metrics.suspicionRaised();
        log.debug("member {}: suspects member {} (incarnation {}) after {} ms of silence; asks it to refute", self,
                emitter, suspectingIncarnation, millis(silentFor));
        transport.send(emitter, new Suspicion(self, incarnation, Suspicion.Kind.SUSPECT, emitter, suspectingIncarnation));
        if (witness == self) {
            member.notifyListener(new MemberSuspected(emitter, suspectingIncarnation, self));
        } else if (witness != NONE && witness != emitter) {
            // the witness (the fabric manager) checks the suspect its own way meanwhile; one datagram, not repeated:
            // a lost notice costs only the head start
            transport.send(witness, new Suspicion(self, incarnation, Suspicion.Kind.NOTICE, emitter, suspectingIncarnation));
        }
        // Confirmations only shorten the wait above δ, which a healthy member does not have: it asks no one.
        int[] candidates = score(now) == 0 ? new int[0] : new int[] {member.observer(), view.previousLive(emitter)};
        for (int h : candidates) {
            if (h != NONE && h != self && h != emitter && (helpersAsked == 0 || confirmers[0] != h)) {
                confirmers[helpersAsked++] = h; // remembered as asked; counted once they confirm
                transport.send(h, new Suspicion(self, incarnation, Suspicion.Kind.PROBE, emitter, suspectingIncarnation));
            }
        }
    }

    /** On each heartbeat period: a datagram may be lost, so the suspect is asked again until it answers or the verdict. */
    void askAgain(long now) {
        if (suspectingSince != NEVER && now - suspectingSince >= eta / 2) {
            int emitter = member.emitter();
            transport.send(emitter,
                    new Suspicion(self, member.incarnation(), Suspicion.Kind.SUSPECT, emitter, suspectingIncarnation));
        }
    }

    /** The emitter was heard while suspected: the suspicion ends, and the silence was partly this member's. */
    void suspicionRefuted(long now, String how) {
        if (suspectingSince == NEVER) {
            return;
        }
        log.debug("member {}: suspicion of member {} refuted ({}) after {} ms", self, member.emitter(), how,
                millis(now - suspectingSince));
        suspectingSince = NEVER;
        metrics.suspicionRefuted();
        metrics.healthChanged(health.raise(now));
    }

    /** A suspicion message from a running member whose incarnation the view has learnt. */
    void onSuspicion(Suspicion s, long now) {
        int from = s.from();
        switch (s.kind()) {
            case SUSPECT -> {
                if (s.member() == self) {
                    refute(s.incarnation(), now);
                    long incarnation = member.incarnation();
                    transport.send(from, new Suspicion(self, incarnation, Suspicion.Kind.ALIVE, self, incarnation));
                }
            }
            case PROBE -> check(from, s.member(), s.incarnation(), now);
            case ALIVE -> {
                pendingChecks.removeIf(c -> {
                    if (c.suspect == from) {
                        c.timer.cancel();
                        return true;
                    }
                    return false;
                });
                if (from == member.emitter()) {
                    suspicionRefuted(now, "it answered at incarnation " + s.fromIncarnation());
                    member.heardFromEmitter(now);
                }
            }
            case CONFIRM -> confirmed(from, s.member(), s.incarnation());
            case NOTICE -> noticed(from, s.member(), s.incarnation());
        }
    }

    /** The score a verdict waits by: this member's own, or its process's when that is higher. */
    private int score(long now) {
        int own = health.score();
        return process == null ? own : Math.max(own, process.score(now));
    }

    /**
     * A member began suspecting {@code suspect}: told to the listener when this member is the ring's witness and
     * {@code from} is the suspect's observer in this view (any other member has no business suspecting it, and a
     * member can only ever cause notices about its own emitter), about the suspect's current incarnation.
     */
    private void noticed(int from, int suspect, long suspectIncarnation) {
        if (witness != self || suspect == self || suspect == from || view.isDead(suspect)
                || view.nextLive(suspect) != from || view.incarnation(suspect) > suspectIncarnation) {
            log.debug("member {}: notice from member {} about member {}@{} ignored", self, from, suspect,
                    suspectIncarnation);
            return;
        }
        member.notifyListener(new MemberSuspected(suspect, suspectIncarnation, from));
    }

    /**
     * This member is suspected at {@code suspectedIncarnation}: if that is its current incarnation, it
     * takes the next one, so that the suspicion (and any verdict about the old incarnation still under
     * way) is void. Once per incarnation, whoever asks; and never past {@link #MAX_INCARNATION}.
     */
    private void refute(long suspectedIncarnation, long now) {
        long incarnation = member.incarnation();
        if (suspectedIncarnation != incarnation) {
            return; // already refuted, or about an earlier life: the ALIVE answer says which incarnation is current
        }
        if (incarnation >= MAX_INCARNATION) {
            log.error("member {}: cannot refute a suspicion: incarnation {} is the highest allowed", self, incarnation);
            return;
        }
        metrics.healthChanged(health.raise(now)); // someone found this member late
        metrics.refutation();
        member.takeNextIncarnation();
    }

    /**
     * Another observer asks this member to check {@code suspect}: ask it to refute, and confirm its silence
     * to the observer after δ/2 unless it answered. A member dead in this view is confirmed at once; one
     * known at a newer incarnation is not (the suspicion is stale).
     */
    private void check(int requester, int suspect, long suspectIncarnation, long now) {
        if (suspect == self || suspect == requester) {
            return;
        }
        long known = view.incarnation(suspect);
        if (known > suspectIncarnation) {
            return;
        }
        if (view.isDead(suspect)) {
            metrics.confirmation();
            transport.send(requester,
                    new Suspicion(self, member.incarnation(), Suspicion.Kind.CONFIRM, suspect, suspectIncarnation));
            return;
        }
        if (pendingChecks.size() >= MAX_PENDING_CHECKS) {
            log.debug("member {}: ignores a request to check member {}: {} checks under way", self, suspect,
                    pendingChecks.size());
            return;
        }
        transport.send(suspect,
                new Suspicion(self, member.incarnation(), Suspicion.Kind.SUSPECT, suspect, suspectIncarnation));
        PendingCheck check = new PendingCheck(requester, suspect, suspectIncarnation, now + delta / 2);
        check.timer = transport.schedule(delta / 2, () -> checkExpired(check));
        pendingChecks.add(check);
    }

    private void checkExpired(PendingCheck check) {
        if (!pendingChecks.remove(check) || member.phase() != MemberPhase.RUNNING) {
            return;
        }
        long now = transport.nanoTime();
        if (timerFired(now - check.due, now) > 0) {
            // this member was late itself: its silence proves nothing about the suspect
            log.debug("member {}: check of member {} ended late; no confirmation", self, check.suspect);
            return;
        }
        metrics.confirmation();
        transport.send(check.requester,
                new Suspicion(self, member.incarnation(), Suspicion.Kind.CONFIRM, check.suspect, check.suspectIncarnation));
    }

    private void confirmed(int helper, int suspect, long suspectIncarnation) {
        if (suspectingSince == NEVER || suspect != member.emitter() || suspectIncarnation != suspectingIncarnation
                || confirmations >= helpersAsked) {
            return;
        }
        for (int i = 0; i < helpersAsked; i++) {
            // confirmers[0..helpersAsked) are the helpers asked; those that confirmed are moved to the front
            if (confirmers[i] == helper) {
                if (i < confirmations) {
                    return; // already counted
                }
                confirmers[i] = confirmers[confirmations];
                confirmers[confirmations++] = helper;
                log.debug("member {}: member {} confirms the silence of member {} ({} of {})", self, helper, suspect,
                        confirmations, helpersAsked);
                member.rearmIfEarlier();
                return;
            }
        }
    }

    /** A check this member runs for another observer: {@code suspect} must answer before {@code due}. */
    private static final class PendingCheck {
        final int requester;
        final int suspect;
        final long suspectIncarnation;
        final long due;
        TimerHandle timer;

        PendingCheck(int requester, int suspect, long suspectIncarnation, long due) {
            this.requester = requester;
            this.suspect = suspect;
            this.suspectIncarnation = suspectIncarnation;
            this.due = due;
        }
    }
}
