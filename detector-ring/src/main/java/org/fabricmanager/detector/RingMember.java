package org.fabricmanager.detector;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.fabricmanager.detector.message.BroadcastCopy;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.message.DetectorEvent.MemberRejoined;
import org.fabricmanager.detector.message.Heartbeat;
import org.fabricmanager.detector.message.Join;
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
 * <p>This class is the member's face and the core of the protocol: its phase and incarnation, the emitter and
 * observer it derives from the view, and the dispatch of messages to its parts, each holding its own state:
 * {@link Heartbeats} (to the observer), {@link EmitterWatch} (the emitter's silence and the suspicion timer),
 * {@link SuspicionPolicy} (Lifeguard), {@link JoinProtocol} and {@link ViewMerger} (the view, the link reports,
 * broadcasts and anti-entropy). The member knows nothing of sockets or clocks: everything goes through its
 * {@link RingTransport}. It is not thread-safe: every method, message delivery and timer action, its parts'
 * included, must run on the member's thread (the simulator's loop or the member's Netty event loop).
 *
 * <p>The emitter and observer are always derived from the view: the emitter is the first live member
 * before this one and the observer the first live member after it, so whatever way the view learns
 * something (a suspicion, a broadcast, a NewObserver, a state sync) the ring follows.
 */
public final class RingMember {
    private static final Logger log = LoggerFactory.getLogger(RingMember.class);
    private static final int NONE = MembershipView.NONE;
    /** No such time (no grace, no suspicion, no warning yet). */
    static final long NEVER = Long.MIN_VALUE;

    private final int self;
    private final int size;
    private final StartMode startMode;
    private final RingTransport transport;
    private final DetectorListener listener;
    private final DetectorMetrics metrics;
    /** Read by every part, written only by {@link #views}. */
    private final MembershipView view;
    private final ViewMerger views;
    private final SuspicionPolicy suspicion;
    private final EmitterWatch watch;
    private final Heartbeats heartbeats;
    private final JoinProtocol joins;
    private final ArrayDeque<PendingLinkReport> pendingLinkReports = new ArrayDeque<>();

    private MemberPhase phase = MemberPhase.CREATED;
    private long incarnation;
    private int emitter = NONE;
    private int observer = NONE;
    private long changes;

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
        this(self, size, parameters, startMode, new MemberDependencies(transport, listener, metrics, null));
    }

    /**
     * As above, for a member that may share its process with other members: {@code dependencies.process()} (null:
     * none) gathers the late timers of all of them, and this member waits for a verdict as long as the later of its
     * own health and the process's says (with Lifeguard on).
     */
    public RingMember(int self, int size, RingParameters parameters, StartMode startMode,
                      MemberDependencies dependencies) {
        if (size < 2) {
            throw new IllegalArgumentException("a ring needs at least 2 members, got " + size);
        }
        if (self < 0 || self >= size) {
            throw new IllegalArgumentException("member " + self + " outside ring of " + size);
        }
        this.self = self;
        this.size = size;
        this.startMode = Objects.requireNonNull(startMode, "startMode");
        this.transport = Objects.requireNonNull(dependencies.transport(), "transport");
        this.listener = Objects.requireNonNull(dependencies.listener(), "listener");
        this.metrics = Objects.requireNonNull(dependencies.metrics(), "metrics");
        this.view = new MembershipView(size);
        BroadcastRelay relay = new BroadcastRelay(self, size, BroadcastOverlay.of(parameters.overlay()), transport, metrics);
        this.views = new ViewMerger(this, self, size, view, relay, parameters.deltaNanos(), dependencies);
        this.suspicion = new SuspicionPolicy(this, self, size, view, parameters, dependencies);
        this.watch = new EmitterWatch(this, self, parameters, views, suspicion, transport);
        this.heartbeats = new Heartbeats(this, self, parameters, suspicion, watch, dependencies);
        this.joins = new JoinProtocol(this, self, size, view, views, parameters.deltaNanos(), transport);
    }

    // ------------------------------------------------------------------ life cycle and commands

    /** Starts heartbeating (bootstrap) or asks to be admitted (join). */
    public void start() {
        if (phase != MemberPhase.CREATED) {
            throw new IllegalStateException("member " + self + " was already started");
        }
        log.debug("member {}: starting ({} of {} members, mode {})", self, self, size, startMode);
        if (startMode == StartMode.BOOTSTRAP) {
            watch.startGrace(transport.nanoTime());
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
        views.markDeadAtStart(members);
    }

    /** Stops for good: cancels every timer and ignores every later input. */
    public void stop() {
        if (phase == MemberPhase.STOPPED) {
            return;
        }
        cancelTimers();
        suspicion.stopped();
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
        watch.endStartupGrace();
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
            views.onBroadcast(b);
        } else if (message instanceof NewObserver n) {
            views.onNewObserver(n);
        } else if (message instanceof Join j) {
            joins.onJoin(j);
        } else if (message instanceof StateSync s) {
            onState(s);
        } else if (message instanceof Suspicion s) {
            // the view first learns the sender's incarnation, which may end this member's run
            if (views.admit(s.from(), s.fromIncarnation()) && phase == MemberPhase.RUNNING) {
                suspicion.onSuspicion(s, transport.nanoTime());
            }
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
        return views.digest();
    }

    /** This member's local health score: 0 when it is on time, up to 3 (the suspicion policy's highest score). */
    public int healthScore() {
        return suspicion.healthScore();
    }

    /** Whether this member currently suspects its emitter (asked it to refute, no verdict yet). */
    public boolean suspectsEmitter() {
        return suspicion.suspecting();
    }

    /** Incremented whenever the view, the phase, the emitter or the observer changes. */
    public long changeCount() {
        return changes;
    }

    /** A copy of this member's state. */
    public MembershipSnapshot snapshot() {
        return new MembershipSnapshot(self, incarnation, phase, emitter, observer, view.entries(), views.linkEntries());
    }

    // ------------------------------------------------------------------ for the parts: phases and incarnation

    void becomeRunning(boolean announce) {
        cancelTimers();
        phase = MemberPhase.RUNNING;
        changes++;
        emitter = NONE;
        observer = NONE;
        reconcile(announce);
        heartbeats.start();
        while (!pendingLinkReports.isEmpty() && phase == MemberPhase.RUNNING) {
            PendingLinkReport r = pendingLinkReports.poll();
            reportLink(r.port(), r.down());
        }
    }

    private void becomeJoining() {
        cancelTimers();
        watch.dropGrace();
        phase = MemberPhase.JOINING;
        changes++;
        emitter = NONE;
        observer = NONE;
        views.forgetMismatch();
        joins.start();
    }

    /**
     * The view learnt that this member is dead at {@code inc}, or alive at it. Either way, above its own
     * incarnation, this process is a zombie for the ring: it stops heartbeating and rejoins one incarnation
     * higher, instead of going on as if nothing happened.
     */
    void rejoinIfOutdated(long inc, boolean dead) {
        boolean outdated = dead ? inc >= incarnation : inc > incarnation;
        if (!outdated) {
            return;
        }
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

    /** A join was refused or came too early: the next Join goes out above the incarnation the view knows. */
    void takeIncarnationAbove(long known) {
        if (known >= incarnation) {
            incarnation = known + 1;
        }
    }

    /** Refutes a suspicion of this member: the next incarnation, made known to the view and the observer at once. */
    void takeNextIncarnation() {
        incarnation++;
        log.debug("member {}: refutes a suspicion; now incarnation {}", self, incarnation);
        views.apply(new MemberRejoined(self, incarnation));
        if (phase == MemberPhase.RUNNING && observer != NONE) {
            heartbeats.send();
        }
    }

    /** The view took {@code event} as news: it changed, and the listener hears of it. */
    void learnt(DetectorEvent event) {
        changes++;
        notifyListener(event);
    }

    void notifyListener(DetectorEvent event) {
        log.debug("member {}: {}", self, event);
        try {
            listener.onEvent(event);
        } catch (RuntimeException e) {
            log.error("member {}: listener failed on {}", self, event, e);
        }
    }

    /**
     * Re-derives emitter and observer from the view. A new emitter gets a NewObserver and 2δ (or what
     * is left of the start-up grace) before it can be suspected (the slides' re-arm); a new observer
     * gets a heartbeat at once.
     */
    void reconcile(boolean announce) {
        if (phase != MemberPhase.RUNNING) {
            return;
        }
        long now = transport.nanoTime();
        int newEmitter = view.previousLive(self);
        if (newEmitter != emitter) {
            emitter = newEmitter;
            changes++;
            views.forgetMismatch();
            suspicion.endSuspicion();
            if (emitter == NONE) {
                watch.stopWatching();
                log.info("member {}: every other member is dead; stops observing", self);
            } else {
                if (announce) {
                    sendNewObserver();
                }
                watch.watchNew(now, announce);
            }
        }
        int newObserver = view.nextLive(self);
        if (newObserver != observer) {
            observer = newObserver;
            changes++;
            if (observer != NONE) {
                heartbeats.send();
            }
        }
    }

    private void cancelTimers() {
        heartbeats.cancel();
        watch.cancel();
        joins.cancel();
        suspicion.cancel();
    }

    /** The emitter answered a suspicion: its silence counts from now. */
    void heardFromEmitter(long now) {
        watch.heardAt(now);
    }

    /** A helper confirmed a suspicion: the verdict may come earlier. */
    void rearmIfEarlier() {
        watch.rearmIfEarlier();
    }

    // ------------------------------------------------------------------ messages

    private void onHeartbeat(Heartbeat h) {
        metrics.heartbeatReceived();
        int from = h.from();
        if (!views.admit(from, h.fromIncarnation())) {
            return;
        }
        if (from != emitter) {
            // Someone whose view differs believes this member is its observer; show it this view.
            if (h.digest() != viewDigest()) {
                views.sendState(from, StateKind.SYNC);
            }
            return;
        }
        long now = transport.nanoTime();
        suspicion.suspicionRefuted(now, "heartbeat"); // first: the timer is then re-armed for the next suspicion
        watch.heardAt(now);
        views.compareDigests(emitter, h.digest(), now);
    }

    // ------------------------------------------------------------------ state, links, sending

    private void onState(StateSync s) {
        boolean zombie = views.merge(s);
        if (phase == MemberPhase.STOPPED) {
            return;
        }
        boolean joinAnswer = s.kind() == StateKind.JOIN_ACCEPTED || s.kind() == StateKind.JOIN_REJECTED;
        if (phase == MemberPhase.JOINING && joinAnswer) {
            joins.answered(s.from(), s.kind() == StateKind.JOIN_ACCEPTED);
        } else if (s.kind() == StateKind.SYNC_REPLY_WANTED && phase == MemberPhase.RUNNING) {
            views.sendState(s.from(), StateKind.SYNC);
        }
        if (zombie) {
            views.answerZombie(s.from(), s.fromIncarnation());
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
        views.reportOwnLink(port, down);
    }

    /** Tells the emitter this member is its new observer, naming the dead members in between. */
    void sendNewObserver() {
        List<MemberStatus> gap = new ArrayList<>();
        for (int m = Math.floorMod(self - 1, size); m != emitter; m = Math.floorMod(m - 1, size)) {
            gap.add(new MemberStatus(m, view.incarnation(m), true));
        }
        transport.send(emitter, new NewObserver(self, incarnation, gap));
    }

    /** Nanoseconds as milliseconds with one decimal, for logs. */
    static String millis(long nanos) {
        return String.format("%.1f", nanos / 1e6);
    }

    private record PendingLinkReport(int port, boolean down) {
    }
}
