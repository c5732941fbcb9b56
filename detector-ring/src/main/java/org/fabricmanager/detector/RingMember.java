package org.fabricmanager.detector;

import org.fabricmanager.detector.message.DetectorEvent;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.fabricmanager.detector.message.DetectorEvent.LinkDown;
import org.fabricmanager.detector.message.DetectorEvent.LinkUp;
import org.fabricmanager.detector.message.DetectorEvent.MemberFailed;
import org.fabricmanager.detector.message.DetectorEvent.MemberRejoined;
import org.fabricmanager.detector.message.BroadcastCopy;
import org.fabricmanager.detector.message.Heartbeat;
import org.fabricmanager.detector.message.Join;
import org.fabricmanager.detector.message.LinkStatus;
import org.fabricmanager.detector.message.MemberStatus;
import org.fabricmanager.detector.message.NewObserver;
import org.fabricmanager.detector.message.RingMessage;
import org.fabricmanager.detector.message.StateKind;
import org.fabricmanager.detector.message.StateSync;
import org.fabricmanager.detector.message.Suspicion;
import org.fabricmanager.detector.overlay.BroadcastOverlay;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of the ring failure detector: the state machine of slides 13-17 of Bosilca et al.
 * (heartbeat the observer every η; suspect a silent emitter after δ, walk back to the next live
 * emitter, send it NewObserver, re-arm to 2δ and broadcast the failure) plus what a fabric manager
 * needs: incarnations, link events, a local-pause guard, joining a running ring, anti-entropy and
 * exactly-once events for the {@link DetectorListener}; and, after Lifeguard (Dadgar et al., 2018), a
 * member that does not accuse when it is the one that is late: a {@link LocalHealth} score that widens
 * its own timeout, a suspicion its emitter can refute by a higher incarnation, and helpers whose
 * confirmations bring the verdict back to δ for a member that really died.
 *
 * <p>The member knows nothing of sockets or clocks: everything goes through its {@link RingTransport}.
 * It is not thread-safe: every method, message delivery and timer action must run on the member's
 * thread (the simulator's loop or the member's Netty event loop).
 *
 * <p>The emitter and observer are always derived from the view: the emitter is the first live member
 * before this one and the observer the first live member after it, so whatever way the view learns
 * something (a suspicion, a broadcast, a NewObserver, a state sync) the ring follows.
 */
public final class RingMember {
    private static final Logger log = LoggerFactory.getLogger(RingMember.class);
    private static final int NONE = MembershipView.NONE;
    private static final long NEVER = Long.MIN_VALUE;
    /** Highest local health score: a member that finds itself late waits up to 4δ before a verdict. */
    static final int MAX_HEALTH_SCORE = 3;
    /** Members an observer asks to check a suspect (SWIM's k). */
    static final int HELPERS = 2;
    /** Checks a helper runs at once for other observers; more requests are ignored (bounded state). */
    static final int MAX_PENDING_CHECKS = 8;
    /** Views store incarnations shifted by one bit and the codec refuses more: a refutation stops here. */
    static final long MAX_INCARNATION = 1L << 61;
    private static final long LATE_WARNING_INTERVAL = 10_000_000_000L;

    private final int self;
    private final int size;
    private final long eta;
    private final long delta;
    private final long pauseThreshold;
    private final long startupGrace;
    private final boolean lifeguard;
    /** The member told of each suspicion this member starts ({@link RingParameters#witness()}), or NONE. */
    private final int witness;
    private final LocalHealth health;
    /** The lateness shared with the other members of this process, or null (alone in it, or Lifeguard off). */
    private final ProcessHealth process;
    private final ArrayDeque<PendingCheck> pendingChecks = new ArrayDeque<>();
    private final BroadcastRelay relay;
    private final StartMode startMode;
    private final RingTransport transport;
    private final DetectorListener listener;
    private final DetectorMetrics metrics;
    private final MembershipView view;
    private final LinkTable links = new LinkTable();
    /** Members this member suspected, with the incarnation suspected, to recognise false suspicions. */
    private final Map<Integer, Long> suspected = new HashMap<>();
    private final ArrayDeque<PendingLinkReport> pendingLinkReports = new ArrayDeque<>();

    private MemberPhase phase = MemberPhase.CREATED;
    private long incarnation;
    private int emitter = NONE;
    private int observer = NONE;
    private long lastHeardFromEmitter;
    private long emitterDeadline;
    /** Until then an emitter never heard from is not suspected (BOOTSTRAP start-up grace); NEVER: no grace. */
    private long graceUntil = NEVER;
    private boolean emitterHeard;
    private long mismatchSince = NEVER;
    private TimerHandle heartbeatTimer;
    private TimerHandle suspicionTimer;
    private TimerHandle joinTimer;
    private long heartbeatDue;
    private long suspicionDue;
    private int joinCandidate;
    private int joinAttempts;
    private long linkSequence;
    private long changes;
    /** When this member started suspecting its emitter (asked it to refute), or NEVER. */
    private long suspectingSince = NEVER;
    private long suspectingIncarnation;
    private long lastLateWarning = NEVER;
    private long lateWarningsSuppressed;
    /** The late-timer slack was given during the current silence of the emitter. */
    private boolean slackGiven;
    private int helpersAsked;
    private final int[] confirmers = new int[HELPERS];
    private int confirmations;

    /**
     * @param self       this member's ring index
     * @param size       number of members n
     * @param parameters η, δ, overlay and pause threshold, identical on every member
     * @param startMode  bootstrap with the whole ring, or join a running ring
     * @param transport  clock, timers and messages
     * @param listener   receives every event exactly once, on the member's thread
     * @param metrics    meters to update (may be shared between members)
     */
    public RingMember(int self, int size, RingParameters parameters, StartMode startMode, RingTransport transport,
                      DetectorListener listener, DetectorMetrics metrics) {
        this(self, size, parameters, startMode, transport, listener, metrics, null);
    }

    /**
     * As above, for a member that shares its process with other members: {@code process} (null: none) gathers the
     * late timers of all of them, and this member waits for a verdict as long as the later of its own health and the
     * process's says (with Lifeguard on).
     */
    public RingMember(int self, int size, RingParameters parameters, StartMode startMode, RingTransport transport,
                      DetectorListener listener, DetectorMetrics metrics, ProcessHealth process) {
        if (size < 2) {
            throw new IllegalArgumentException("a ring needs at least 2 members, got " + size);
        }
        if (self < 0 || self >= size) {
            throw new IllegalArgumentException("member " + self + " outside ring of " + size);
        }
        this.self = self;
        this.size = size;
        this.eta = parameters.etaNanos();
        this.delta = parameters.deltaNanos();
        this.pauseThreshold = parameters.pauseThresholdNanos();
        this.startupGrace = parameters.startupGraceNanos();
        this.lifeguard = parameters.lifeguard();
        this.witness = parameters.witness() < size ? parameters.witness() : NONE;
        // a timer later than half a heartbeat period is evidence; one calm δ forgives a point
        this.health = new LocalHealth(lifeguard ? MAX_HEALTH_SCORE : 0, Math.max(1, eta / 2), delta);
        this.process = lifeguard ? process : null;
        this.startMode = Objects.requireNonNull(startMode, "startMode");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.relay = new BroadcastRelay(self, size, BroadcastOverlay.of(parameters.overlay()), transport, metrics);
        this.view = new MembershipView(size);
    }

    // ------------------------------------------------------------------ life cycle and commands

    /** Starts heartbeating (bootstrap) or asks to be admitted (join). */
    public void start() {
        if (phase != MemberPhase.CREATED) {
            throw new IllegalStateException("member " + self + " was already started");
        }
        log.debug("member {}: starting ({} of {} members, mode {})", self, self, size, startMode);
        if (startMode == StartMode.BOOTSTRAP) {
            graceUntil = transport.nanoTime() + startupGrace;
            becomeRunning(false);
        } else {
            becomeJoining();
        }
    }

    /**
     * Before {@link #start()}: {@code members} are in the dead set from the start, at incarnation 0, as if a
     * broadcast had declared them dead. They are ring slots whose process is not there yet: nobody suspects them
     * (the ring closes over them as over any dead member) and nobody reports an event about them; a process that
     * later takes such a slot joins ({@link StartMode#JOIN}) above incarnation 0 and is broadcast as rejoined.
     * Every member of a cold start must be given the same set, or their view digests differ until anti-entropy
     * merges them. Its own index is ignored.
     */
    public void startDead(int[] members) {
        if (phase != MemberPhase.CREATED) {
            throw new IllegalStateException("member " + self + ": the dead set at start is given before start()");
        }
        for (int m : members) {
            if (m != self) {
                view.markDead(m, 0);
            }
        }
    }

    /** Stops for good: cancels every timer and ignores every later input. */
    public void stop() {
        if (phase == MemberPhase.STOPPED) {
            return;
        }
        cancelTimers();
        metrics.healthChanged(-health.score());
        phase = MemberPhase.STOPPED;
        emitter = NONE;
        observer = NONE;
        changes++;
        log.debug("member {}: stopped", self);
    }

    /**
     * Ends the start-up grace early: the caller knows every other member is running now (the daemon,
     * once every agent acknowledged its configuration). An emitter still never heard from then gets the
     * usual 2δ from now. No effect after the grace or without one.
     */
    public void endStartupGrace() {
        if (graceUntil == NEVER) {
            return;
        }
        graceUntil = NEVER;
        if (phase != MemberPhase.RUNNING || emitter == NONE) {
            return;
        }
        long latest = transport.nanoTime() + 2 * delta;
        if (emitterDeadline > latest) {
            log.debug("member {}: start-up grace ended; emitter {} not heard yet, suspected in {} ms", self, emitter,
                    millis(2 * delta));
            emitterDeadline = latest;
            if (suspicionTimer != null) {
                suspicionTimer.cancel();
                suspicionTimer = null;
            }
            armSuspicionTimer();
        }
    }

    /** Reports that this member's own port went down; broadcast to every member once running. */
    public void reportLinkDown(int port) {
        reportLink(port, true);
    }

    /** Reports that this member's own port came back up; broadcast to every member once running. */
    public void reportLinkUp(int port) {
        reportLink(port, false);
    }

    /** Handles one message from another member. */
    public void deliver(RingMessage message) {
        if (phase == MemberPhase.CREATED || phase == MemberPhase.STOPPED) {
            return;
        }
        int from = message.from();
        if (from < 0 || from >= size || from == self) {
            log.debug("member {}: drops {} with an impossible sender", self, message);
            return;
        }
        if (message instanceof Heartbeat h) {
            onHeartbeat(h);
        } else if (message instanceof BroadcastCopy b) {
            onBroadcast(b);
        } else if (message instanceof NewObserver n) {
            onNewObserver(n);
        } else if (message instanceof Join j) {
            onJoin(j);
        } else if (message instanceof StateSync s) {
            onState(s);
        } else if (message instanceof Suspicion s) {
            onSuspicion(s);
        }
    }

    // ------------------------------------------------------------------ inspection

    public int self() {
        return self;
    }

    public int size() {
        return size;
    }

    public MemberPhase phase() {
        return phase;
    }

    /** This member's own incarnation. */
    public long incarnation() {
        return incarnation;
    }

    /** The member this one observes, or -1 (not running, or every other member dead). */
    public int emitter() {
        return emitter;
    }

    /** The member this one heartbeats, or -1. */
    public int observer() {
        return observer;
    }

    /** Whether {@code member} is dead in this member's view. */
    public boolean isDead(int member) {
        return view.isDead(member);
    }

    /** The highest incarnation of {@code member} this member knows. */
    public long knownIncarnation(int member) {
        return view.incarnation(member);
    }

    /** The dead set D, ascending (a copy). */
    public int[] deadMembers() {
        return view.deadMembers().clone();
    }

    /** Order-independent hash of the view; equal views have equal digests. */
    public long viewDigest() {
        return view.digest() ^ links.digest();
    }

    /** This member's local health score: 0 when it is on time, up to {@value #MAX_HEALTH_SCORE}. */
    public int healthScore() {
        return health.score();
    }

    /** Whether this member currently suspects its emitter (asked it to refute, no verdict yet). */
    public boolean suspectsEmitter() {
        return suspectingSince != NEVER;
    }

    /** Incremented whenever the view, the phase, the emitter or the observer changes. */
    public long changeCount() {
        return changes;
    }

    /** A copy of this member's state. */
    public MembershipSnapshot snapshot() {
        return new MembershipSnapshot(self, incarnation, phase, emitter, observer, view.entries(), links.entries());
    }

    // ------------------------------------------------------------------ phases

    private void becomeRunning(boolean announce) {
        cancelTimers();
        phase = MemberPhase.RUNNING;
        changes++;
        emitter = NONE;
        observer = NONE;
        reconcile(announce);
        long now = transport.nanoTime();
        heartbeatDue = now + eta;
        heartbeatTimer = transport.schedule(eta, this::onHeartbeatTimer);
        while (!pendingLinkReports.isEmpty() && phase == MemberPhase.RUNNING) {
            PendingLinkReport r = pendingLinkReports.poll();
            reportLink(r.port(), r.down());
        }
    }

    private void becomeJoining() {
        cancelTimers();
        graceUntil = NEVER;
        phase = MemberPhase.JOINING;
        changes++;
        emitter = NONE;
        observer = NONE;
        mismatchSince = NEVER;
        joinAttempts = 0;
        joinCandidate = nextJoinCandidate(self);
        sendJoin(joinCandidate);
    }

    private void cancelTimers() {
        if (heartbeatTimer != null) {
            heartbeatTimer.cancel();
            heartbeatTimer = null;
        }
        if (suspicionTimer != null) {
            suspicionTimer.cancel();
            suspicionTimer = null;
        }
        if (joinTimer != null) {
            joinTimer.cancel();
            joinTimer = null;
        }
        for (PendingCheck c : pendingChecks) {
            c.timer.cancel();
        }
        pendingChecks.clear();
        suspectingSince = NEVER;
    }

    /**
     * Re-derives emitter and observer from the view. A new emitter gets a NewObserver and 2δ (or what
     * is left of the start-up grace) before it can be suspected (the slides' re-arm); a new observer
     * gets a heartbeat at once.
     */
    private void reconcile(boolean announce) {
        if (phase != MemberPhase.RUNNING) {
            return;
        }
        long now = transport.nanoTime();
        int newEmitter = view.previousLive(self);
        if (newEmitter != emitter) {
            emitter = newEmitter;
            changes++;
            mismatchSince = NEVER;
            suspectingSince = NEVER;
            slackGiven = false;
            if (emitter == NONE) {
                if (suspicionTimer != null) {
                    suspicionTimer.cancel();
                    suspicionTimer = null;
                }
                log.info("member {}: every other member is dead; stops observing", self);
            } else {
                lastHeardFromEmitter = now;
                // graceUntil is NEVER or passed except in a cold start, where the emitter may not run yet
                emitterDeadline = Math.max(now + 2 * delta, graceUntil);
                emitterHeard = !announce;
                if (announce) {
                    sendNewObserver();
                }
                armSuspicionTimer();
            }
        }
        int newObserver = view.nextLive(self);
        if (newObserver != observer) {
            observer = newObserver;
            changes++;
            if (observer != NONE) {
                sendHeartbeat();
            }
        }
    }

    // ------------------------------------------------------------------ timers

    private void onHeartbeatTimer() {
        heartbeatTimer = null;
        if (phase != MemberPhase.RUNNING) {
            return;
        }
        long now = transport.nanoTime();
        long lateness = now - heartbeatDue;
        int healthChange = timerFired(lateness, now);
        metrics.healthChanged(healthChange);
        if (healthChange < 0 && suspectingSince != NEVER) {
            // the verdict depends on the score: a forgiven point brings it forward (a later one is
            // found by the timer itself, which re-arms when it fires early)
            rearmIfEarlier();
        }
        if (lateness > pauseThreshold) {
            metrics.heartbeatLate();
            // an overloaded host makes every member late at once: warn about lateness the observer may
            // notice (δ/2, when it starts suspecting), at most once per 10 s per member
            if (lateness > delta / 2 && (lastLateWarning == NEVER || now - lastLateWarning >= LATE_WARNING_INTERVAL)) {
                log.warn("member {}: heartbeat to observer {} is {} ms late (local pause or overload?); "
                        + "the observer may suspect this member{}", self, observer, millis(lateness),
                        lateWarningsSuppressed > 0 ? " (" + lateWarningsSuppressed + " late heartbeats since the last warning)" : "");
                lastLateWarning = now;
                lateWarningsSuppressed = 0;
            } else {
                lateWarningsSuppressed++;
                log.debug("member {}: heartbeat to observer {} is {} ms late", self, observer, millis(lateness));
            }
            heartbeatDue = now;
        }
        if (observer != NONE) {
            sendHeartbeat();
        }
        if (emitter != NONE && !emitterHeard) {
            // The NewObserver was lost, went to a member that died meanwhile, or found it joining: repeat it.
            sendNewObserver();
        }
        if (suspectingSince != NEVER && now - suspectingSince >= eta / 2) {
            // a datagram may be lost: ask again every η until the emitter answers or the verdict
            transport.send(emitter, new Suspicion(self, incarnation, Suspicion.Kind.SUSPECT, emitter, suspectingIncarnation));
        }
        heartbeatDue += eta;
        if (heartbeatDue <= now) {
            heartbeatDue = now + eta;
        }
        heartbeatTimer = transport.schedule(heartbeatDue - now, this::onHeartbeatTimer);
    }

    private void armSuspicionTimer() {
        if (suspicionTimer != null || emitter == NONE) {
            return;
        }
        long now = transport.nanoTime();
        long delay = Math.max(0, nextCheck() - now);
        suspicionDue = now + delay;
        suspicionTimer = transport.schedule(delay, this::onSuspicionTimer);
    }

    /**
     * Fires at the emitter's deadline; heartbeats only move the deadline, so a busy member schedules
     * one timer per δ instead of one per heartbeat.
     */
    private void onSuspicionTimer() {
        suspicionTimer = null;
        if (phase != MemberPhase.RUNNING || emitter == NONE) {
            return;
        }
        long now = transport.nanoTime();
        long lateness = now - suspicionDue;
        metrics.healthChanged(timerFired(lateness, now));
        if (now < suspicionStart()) {
            armSuspicionTimer();
            return;
        }
        if (lateness > pauseThreshold && !lifeguard) {
            // This member itself did not run for a while: the emitter's heartbeats may be waiting to be
            // read, so the silence proves nothing yet. One more period decides.
            log.warn("member {}: suspicion timer fired {} ms late (was this process paused?); "
                    + "gives emitter {} one more period before suspecting it", self, millis(lateness), emitter);
            emitterDeadline = now + delta;
            armSuspicionTimer();
            return;
        }
        if (lateness > pauseThreshold && !slackGiven) {
            // The same doubt with local health: look again after η, by when anything waiting in the socket
            // has been read. Once per silence: a member that stays late is covered by its score, which is
            // bounded, where repeated slack would never let it declare anyone dead.
            slackGiven = true;
            log.debug("member {}: suspicion timer fired {} ms late; looks again at emitter {} in one heartbeat period",
                    self, millis(lateness), emitter);
            suspicionDue = now + eta;
            suspicionTimer = transport.schedule(eta, this::onSuspicionTimer);
            return;
        }
        if (!lifeguard) {
            suspect(now);
            return;
        }
        if (suspectingSince == NEVER) {
            startSuspicion(now);
            armSuspicionTimer();
            return;
        }
        if (now < verdictTime()) {
            armSuspicionTimer();
            return;
        }
        suspect(now);
    }

    // ------------------------------------------------------------------ local health and refutable suspicion

    /**
     * When the suspicion timer must next look: the SC'16 deadline without Lifeguard; with it, the start
     * of the suspicion (δ/2 before that deadline), then the verdict.
     */
    private long nextCheck() {
        if (!lifeguard) {
            return emitterDeadline;
        }
        return suspectingSince == NEVER ? suspicionStart() : verdictTime();
    }

    /** Moves the suspicion timer to the next check if that is now earlier than the timer. */
    private void rearmIfEarlier() {
        if (suspicionTimer != null && nextCheck() < suspicionDue) {
            suspicionTimer.cancel();
            suspicionTimer = null;
            armSuspicionTimer();
        }
    }

    private long suspicionStart() {
        return lifeguard ? emitterDeadline - delta / 2 : emitterDeadline;
    }

    /**
     * The verdict: δ·(1 + score) of silence, where the part above δ shrinks as helpers confirm (Lifeguard's
     * dynamic suspicion, by log(C + 1) / log(K + 1)) and vanishes when every helper asked has confirmed. A
     * healthy member (score 0) therefore declares a silent emitter dead after δ, the SC'16 bound, whatever
     * the helpers say; never before.
     */
    private long verdictTime() {
        long extra = delta * score(transport.nanoTime());
        if (extra > 0 && helpersAsked > 0 && confirmations > 0) {
            double done = Math.log(confirmations + 1) / Math.log(helpersAsked + 1);
            extra = (long) (extra * Math.max(0, 1 - done));
        }
        return emitterDeadline + extra;
    }

    /**
     * Silence of δ/2: the emitter is asked to refute, and up to {@value #HELPERS} helpers (this member's
     * observer and the suspect's own emitter, whichever are alive and distinct) to check it.
     */
    private void startSuspicion(long now) {
        suspectingSince = now;
        suspectingIncarnation = view.incarnation(emitter);
        confirmations = 0;
        helpersAsked = 0;
        metrics.suspicionRaised();
        log.debug("member {}: suspects member {} (incarnation {}) after {} ms of silence; asks it to refute", self,
                emitter, suspectingIncarnation, millis(now - lastHeardFromEmitter));
        transport.send(emitter, new Suspicion(self, incarnation, Suspicion.Kind.SUSPECT, emitter, suspectingIncarnation));
        if (witness == self) {
            notifyListener(new DetectorEvent.MemberSuspected(emitter, suspectingIncarnation, self));
        } else if (witness != NONE && witness != emitter) {
            // the witness (the fabric manager) checks the suspect its own way meanwhile; one datagram, not repeated:
            // a lost notice costs only the head start
            transport.send(witness, new Suspicion(self, incarnation, Suspicion.Kind.NOTICE, emitter, suspectingIncarnation));
        }
        // Confirmations only shorten the wait above δ, which a healthy member does not have: it asks no one.
        int[] candidates = score(now) == 0 ? new int[0] : new int[] {observer, view.previousLive(emitter)};
        for (int h : candidates) {
            if (h != NONE && h != self && h != emitter && (helpersAsked == 0 || confirmers[0] != h)) {
                confirmers[helpersAsked++] = h; // remembered as asked; counted once they confirm
                transport.send(h, new Suspicion(self, incarnation, Suspicion.Kind.PROBE, emitter, suspectingIncarnation));
            }
        }
    }

    /** One of this member's timers fired {@code lateness} late: evidence for its own health and its process's. */
    private int timerFired(long lateness, long now) {
        if (process != null) {
            process.timerFired(lateness, health.slipThreshold(), delta, now);
        }
        return health.timerFired(lateness, now);
    }

    /** The score a verdict waits by: this member's own, or its process's when that is higher. */
    private int score(long now) {
        int own = health.score();
        return process == null ? own : Math.max(own, process.score(now));
    }

    /** The emitter was heard while suspected: the suspicion ends, and the silence was partly this member's. */
    private void suspicionRefuted(long now, String how) {
        if (suspectingSince == NEVER) {
            return;
        }
        log.debug("member {}: suspicion of member {} refuted ({}) after {} ms", self, emitter, how,
                millis(now - suspectingSince));
        suspectingSince = NEVER;
        metrics.suspicionRefuted();
        metrics.healthChanged(health.raise(now));
    }

    private void onSuspicion(Suspicion s) {
        int from = s.from();
        long inc = s.fromIncarnation();
        if (isZombie(from, inc)) {
            answerZombie(from, inc);
            return;
        }
        if (phase != MemberPhase.RUNNING) {
            return;
        }
        learnIncarnation(from, inc);
        if (phase != MemberPhase.RUNNING) {
            return;
        }
        long now = transport.nanoTime();
        switch (s.kind()) {
            case SUSPECT -> {
                if (s.member() == self) {
                    refute(s.incarnation(), now);
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
                if (from == emitter) {
                    suspicionRefuted(now, "it answered at incarnation " + inc);
                    heardFromEmitter(now);
                }
            }
            case CONFIRM -> confirmed(from, s.member(), s.incarnation());
            case NOTICE -> noticed(from, s.member(), s.incarnation());
        }
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
        notifyListener(new DetectorEvent.MemberSuspected(suspect, suspectIncarnation, from));
    }

    /**
     * This member is suspected at {@code suspectedIncarnation}: if that is its current incarnation, it
     * takes the next one, so that the suspicion (and any verdict about the old incarnation still under
     * way) is void. Once per incarnation, whoever asks; and never past {@link #MAX_INCARNATION}.
     */
    private void refute(long suspectedIncarnation, long now) {
        if (suspectedIncarnation != incarnation) {
            return; // already refuted, or about an earlier life: the ALIVE answer says which incarnation is current
        }
        if (incarnation >= MAX_INCARNATION) {
            log.error("member {}: cannot refute a suspicion: incarnation {} is the highest allowed", self, incarnation);
            return;
        }
        metrics.healthChanged(health.raise(now)); // someone found this member late
        metrics.refutation();
        incarnation++;
        log.debug("member {}: refutes a suspicion; now incarnation {}", self, incarnation);
        applyEvent(new MemberRejoined(self, incarnation));
        if (phase == MemberPhase.RUNNING && observer != NONE) {
            sendHeartbeat();
        }
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
            transport.send(requester, new Suspicion(self, incarnation, Suspicion.Kind.CONFIRM, suspect, suspectIncarnation));
            return;
        }
        if (pendingChecks.size() >= MAX_PENDING_CHECKS) {
            log.debug("member {}: ignores a request to check member {}: {} checks under way", self, suspect,
                    pendingChecks.size());
            return;
        }
        transport.send(suspect, new Suspicion(self, incarnation, Suspicion.Kind.SUSPECT, suspect, suspectIncarnation));
        PendingCheck check = new PendingCheck(requester, suspect, suspectIncarnation, now + delta / 2);
        check.timer = transport.schedule(delta / 2, () -> checkExpired(check));
        pendingChecks.add(check);
    }

    private void checkExpired(PendingCheck check) {
        if (!pendingChecks.remove(check) || phase != MemberPhase.RUNNING) {
            return;
        }
        long now = transport.nanoTime();
        int change = timerFired(now - check.due, now);
        metrics.healthChanged(change);
        if (change > 0) {
            // this member was late itself: its silence proves nothing about the suspect
            log.debug("member {}: check of member {} ended late; no confirmation", self, check.suspect);
            return;
        }
        metrics.confirmation();
        transport.send(check.requester,
                new Suspicion(self, incarnation, Suspicion.Kind.CONFIRM, check.suspect, check.suspectIncarnation));
    }

    private void confirmed(int helper, int suspect, long suspectIncarnation) {
        if (suspectingSince == NEVER || suspect != emitter || suspectIncarnation != suspectingIncarnation
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
                rearmIfEarlier();
                return;
            }
        }
    }

    private void onJoinTimer() {
        joinTimer = null;
        if (phase != MemberPhase.JOINING) {
            return;
        }
        joinAttempts++;
        if (joinAttempts >= size - 1) {
            log.warn("member {}: no running member answered {} join requests; starts with its own view "
                    + "at incarnation {}", self, joinAttempts, incarnation);
            if (view.markAlive(self, incarnation)) {
                changes++;
                notifyListener(new MemberRejoined(self, incarnation));
            }
            becomeRunning(true);
            return;
        }
        joinCandidate = nextJoinCandidate(joinCandidate);
        sendJoin(joinCandidate);
    }

    // ------------------------------------------------------------------ detection

    private void suspect(long now) {
        int e = emitter;
        long inc = view.incarnation(e);
        long silentFor = now - lastHeardFromEmitter;
        metrics.suspicion(silentFor);
        suspectingSince = NEVER;
        log.info("member {}: suspects member {} (incarnation {}): no heartbeat for {} ms", self, e, inc, millis(silentFor));
        suspected.put(e, inc);
        MemberFailed event = new MemberFailed(e, inc);
        applyEvent(event); // marks it dead, walks back to the next live emitter and sends it NewObserver
        originate(event);
    }

    // ------------------------------------------------------------------ message handlers

    private void onHeartbeat(Heartbeat h) {
        metrics.heartbeatReceived();
        int from = h.from();
        long inc = h.fromIncarnation();
        if (isZombie(from, inc)) {
            answerZombie(from, inc);
            return;
        }
        if (phase != MemberPhase.RUNNING) {
            return;
        }
        learnIncarnation(from, inc);
        if (from != emitter) {
            // Someone whose view differs believes this member is its observer; show it this view.
            if (h.digest() != viewDigest()) {
                sendState(from, StateKind.SYNC);
            }
            return;
        }
        long now = transport.nanoTime();
        suspicionRefuted(now, "heartbeat"); // first: the timer is then re-armed for the next suspicion
        heardFromEmitter(now);
        compareDigests(h.digest(), now);
    }

    private void heardFromEmitter(long now) {
        slackGiven = false;
        lastHeardFromEmitter = now;
        emitterDeadline = now + delta;
        emitterHeard = true;
        if (suspicionTimer != null && suspicionDue > nextCheckAfterHeard()) {
            // armed for a new emitter's 2δ or the start-up grace: once heard, silence counts from δ
            suspicionTimer.cancel();
            suspicionTimer = null;
            armSuspicionTimer();
        }
    }

    private long nextCheckAfterHeard() {
        return lifeguard ? emitterDeadline - delta / 2 : emitterDeadline;
    }

    /**
     * Anti-entropy: views differ briefly while a broadcast spreads; a difference lasting δ means one
     * side missed something (a lost datagram, more failures than the overlay tolerates), so the two
     * swap views. Costs nothing while views agree.
     */
    private void compareDigests(long theirs, long now) {
        if (theirs == viewDigest()) {
            mismatchSince = NEVER;
        } else if (mismatchSince == NEVER) {
            mismatchSince = now;
        } else if (now - mismatchSince >= delta) {
            log.debug("member {}: view differs from emitter {}'s for {} ms; exchanging views", self, emitter,
                    millis(now - mismatchSince));
            sendState(emitter, StateKind.SYNC_REPLY_WANTED);
            mismatchSince = now;
        }
    }

    private void onNewObserver(NewObserver n) {
        int from = n.from();
        long inc = n.fromIncarnation();
        if (isZombie(from, inc)) {
            answerZombie(from, inc);
            return;
        }
        if (phase != MemberPhase.RUNNING) {
            return; // the sender repeats it every η until this member heartbeats it
        }
        learnIncarnation(from, inc);
        for (MemberStatus g : n.gap()) {
            mergeMember(g);
            if (phase != MemberPhase.RUNNING) {
                return;
            }
        }
        if (observer != from) {
            log.debug("member {}: NewObserver from {} is stale: member {} is alive in between", self, from, observer);
        }
        // A new observer receives the current view, and a stale one learns why it was refused.
        sendState(from, StateKind.SYNC);
    }

    private void onJoin(Join j) {
        if (phase != MemberPhase.RUNNING) {
            return; // only a running member's view is worth handing out
        }
        int from = j.from();
        long inc = j.fromIncarnation();
        long known = view.incarnation(from);
        boolean admissible = inc > known || (inc == known && !view.isDead(from));
        if (!admissible) {
            log.debug("member {}: refuses join of member {} at incarnation {} (known {}{})", self, from, inc, known,
                    view.isDead(from) ? ", dead" : "");
            sendState(from, StateKind.JOIN_REJECTED);
            return;
        }
        MemberRejoined event = new MemberRejoined(from, inc);
        boolean news = inc > known && applyEvent(event);
        sendState(from, StateKind.JOIN_ACCEPTED);
        if (news) {
            log.info("member {}: admits member {} at incarnation {}", self, from, inc);
            originate(event);
        }
    }

    private void onState(StateSync s) {
        int from = s.from();
        long inc = s.fromIncarnation();
        boolean zombie = isZombie(from, inc);
        if (!zombie) {
            learnIncarnation(from, inc);
        }
        for (MemberStatus m : s.members()) {
            if (m.member() >= 0 && m.member() < size) {
                mergeMember(m);
            }
        }
        for (LinkStatus l : s.links()) {
            if (l.reporter() >= 0 && l.reporter() < size) {
                mergeLink(l);
            }
        }
        if (phase == MemberPhase.STOPPED) {
            return;
        }
        boolean joinAnswer = s.kind() == StateKind.JOIN_ACCEPTED || s.kind() == StateKind.JOIN_REJECTED;
        if (phase == MemberPhase.JOINING && joinAnswer) {
            if (s.kind() == StateKind.JOIN_ACCEPTED && !view.isDead(self) && view.incarnation(self) == incarnation) {
                log.info("member {}: admitted by member {} at incarnation {}; {} dead member(s) known", self, from,
                        incarnation, view.deadCount());
                becomeRunning(true);
            } else {
                if (view.incarnation(self) >= incarnation) {
                    incarnation = view.incarnation(self) + 1;
                }
                sendJoin(from);
            }
        } else if (s.kind() == StateKind.SYNC_REPLY_WANTED && phase == MemberPhase.RUNNING) {
            sendState(from, StateKind.SYNC);
        }
        if (zombie) {
            answerZombie(from, inc);
        }
    }

    private void onBroadcast(BroadcastCopy copy) {
        if (isZombie(copy.from(), copy.fromIncarnation())) {
            answerZombie(copy.from(), copy.fromIncarnation());
        }
        if (!applyEvent(copy.event())) {
            metrics.broadcastDuplicate();
        }
        if (phase != MemberPhase.STOPPED) {
            relay.forward(copy, incarnation);
        }
    }

    // ------------------------------------------------------------------ view updates

    /**
     * Applies an event to the view; if it is news, tells the listener (exactly once, since the view
     * only moves forward) and re-derives the ring. Returns whether it was news.
     */
    private boolean applyEvent(DetectorEvent event) {
        boolean news;
        if (event instanceof MemberFailed f) {
            if (f.member() == self) {
                return learnSelfStatus(f.incarnation(), true);
            }
            news = view.markDead(f.member(), f.incarnation());
        } else if (event instanceof MemberRejoined r) {
            if (r.member() == self) {
                return learnSelfStatus(r.incarnation(), false);
            }
            news = view.markAlive(r.member(), r.incarnation());
            if (news) {
                suspected.remove(r.member());
            }
        } else if (event instanceof LinkDown d) {
            news = links.apply(new LinkStatus(d.reporter(), d.reporterIncarnation(), d.port(), d.sequence(), true));
        } else if (event instanceof LinkUp u) {
            news = links.apply(new LinkStatus(u.reporter(), u.reporterIncarnation(), u.port(), u.sequence(), false));
        } else {
            throw new IllegalArgumentException("unknown event " + event);
        }
        if (!news) {
            return false;
        }
        changes++;
        notifyListener(event);
        reconcile(true);
        return true;
    }

    /**
     * Someone says this member is dead at {@code inc}, or alive at an incarnation above its own. Either
     * way this process is a zombie for the ring: it stops heartbeating and rejoins one incarnation
     * higher, instead of going on as if nothing happened.
     */
    private boolean learnSelfStatus(long inc, boolean dead) {
        boolean news = dead ? view.markDead(self, inc) : view.markAlive(self, inc);
        if (news) {
            changes++;
            notifyListener(dead ? new MemberFailed(self, inc) : new MemberRejoined(self, inc));
        }
        boolean outdated = dead ? inc >= incarnation : inc > incarnation;
        if (outdated) {
            long next = inc + 1;
            if (dead) {
                log.warn("member {}: was declared dead at incarnation {}; stops heartbeating and rejoins as incarnation {}",
                        self, inc, next);
            } else {
                log.warn("member {}: the ring knows a newer incarnation {} of it (another process with the same index?); "
                        + "rejoins as incarnation {}", self, inc, next);
            }
            incarnation = next;
            metrics.rejoin();
            if (phase == MemberPhase.RUNNING) {
                becomeJoining();
            }
        }
        return news;
    }

    private void mergeMember(MemberStatus m) {
        applyEvent(m.dead() ? new MemberFailed(m.member(), m.incarnation()) : new MemberRejoined(m.member(), m.incarnation()));
    }

    private void mergeLink(LinkStatus l) {
        if (l.reporter() == self) {
            // After a quick restart the ring may remember reports of this incarnation: continue after them.
            linkSequence = Math.max(linkSequence, l.sequence());
        }
        applyEvent(l.down() ? new LinkDown(l.reporter(), l.reporterIncarnation(), l.port(), l.sequence())
                : new LinkUp(l.reporter(), l.reporterIncarnation(), l.port(), l.sequence()));
    }

    /** A running member's messages carry its incarnation: seeing a newer one is proof of a rejoin. */
    private void learnIncarnation(int from, long inc) {
        if (inc > view.incarnation(from)) {
            boolean wasDead = view.isDead(from);
            MemberRejoined event = new MemberRejoined(from, inc);
            if (applyEvent(event) && wasDead && phase == MemberPhase.RUNNING && from == emitter) {
                // it refuted its suspicion after the verdict went out: the ring must hear it is back, as
                // after a Join. Its observer tells (one broadcast, not one per member that hears it); a
                // refutation without a verdict is learnt by the others when they hear from it.
                log.info("member {}: member {} declared dead is alive at incarnation {}", self, from, inc);
                originate(event);
            }
        }
    }

    /** Whether the sender is dead (or superseded) in this view: then it must be told so. */
    private boolean isZombie(int from, long inc) {
        long known = view.incarnation(from);
        return inc < known || (inc == known && view.isDead(from));
    }

    private void answerZombie(int from, long inc) {
        Long suspectedAt = suspected.get(from);
        if (suspectedAt != null && suspectedAt == inc) {
            suspected.remove(from);
            metrics.falseSuspicion();
            log.info("member {}: member {} (incarnation {}) was suspected but is alive; it will rejoin", self, from, inc);
        }
        if (phase == MemberPhase.RUNNING) {
            sendState(from, StateKind.SYNC);
        }
    }

    private void reportLink(int port, boolean down) {
        if (port < 0) {
            throw new IllegalArgumentException("member " + self + ": negative port " + port);
        }
        if (phase == MemberPhase.STOPPED) {
            return;
        }
        if (phase != MemberPhase.RUNNING) {
            pendingLinkReports.add(new PendingLinkReport(port, down));
            return;
        }
        LinkStatus current = links.get(self, port);
        boolean noChange = current == null ? !down
                : current.down() == down && current.reporterIncarnation() == incarnation;
        if (noChange) {
            return;
        }
        long sequence = ++linkSequence;
        DetectorEvent event = down ? new LinkDown(self, incarnation, port, sequence) : new LinkUp(self, incarnation, port, sequence);
        log.info("member {}: reports its port {} {}", self, port, down ? "down" : "up");
        applyEvent(event);
        originate(event);
    }

    private void notifyListener(DetectorEvent event) {
        log.debug("member {}: {}", self, event);
        try {
            listener.onEvent(event);
        } catch (RuntimeException e) {
            log.error("member {}: listener failed on {}", self, event, e);
        }
    }

    // ------------------------------------------------------------------ sending

    private void originate(DetectorEvent event) {
        relay.originate(event, view.deadMembers(), incarnation);
    }

    private void sendHeartbeat() {
        metrics.heartbeatSent();
        transport.send(observer, new Heartbeat(self, incarnation, viewDigest()));
    }

    private void sendNewObserver() {
        List<MemberStatus> gap = new ArrayList<>();
        for (int m = Math.floorMod(self - 1, size); m != emitter; m = Math.floorMod(m - 1, size)) {
            gap.add(new MemberStatus(m, view.incarnation(m), true));
        }
        transport.send(emitter, new NewObserver(self, incarnation, gap));
    }

    private void sendJoin(int to) {
        if (joinTimer != null) {
            joinTimer.cancel();
        }
        log.debug("member {}: asks member {} to admit it at incarnation {}", self, to, incarnation);
        transport.send(to, new Join(self, incarnation));
        joinTimer = transport.schedule(delta, this::onJoinTimer);
    }

    private void sendState(int to, StateKind kind) {
        if (phase != MemberPhase.RUNNING) {
            return;
        }
        metrics.stateSync();
        transport.send(to, new StateSync(self, incarnation, kind, view.entries(), links.entries()));
    }

    /** The next member after {@code after} to ask for admission: live in the view if possible, never self. */
    private int nextJoinCandidate(int after) {
        for (int k = 1; k < size; k++) {
            int c = (after + k) % size;
            if (c != self && !view.isDead(c)) {
                return c;
            }
        }
        int c = (after + 1) % size;
        return c == self ? (c + 1) % size : c;
    }

    private static String millis(long nanos) {
        return String.format("%.1f", nanos / 1e6);
    }

    private record PendingLinkReport(int port, boolean down) {
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
