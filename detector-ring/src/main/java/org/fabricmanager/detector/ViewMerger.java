package org.fabricmanager.detector;

import static org.fabricmanager.detector.RingMember.NEVER;
import static org.fabricmanager.detector.RingMember.millis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.detector.message.BroadcastCopy;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.message.DetectorEvent.LinkDown;
import org.fabricmanager.detector.message.DetectorEvent.LinkUp;
import org.fabricmanager.detector.message.DetectorEvent.MemberFailed;
import org.fabricmanager.detector.message.DetectorEvent.MemberRejoined;
import org.fabricmanager.detector.message.LinkStatus;
import org.fabricmanager.detector.message.MemberStatus;
import org.fabricmanager.detector.message.NewObserver;
import org.fabricmanager.detector.message.StateKind;
import org.fabricmanager.detector.message.StateSync;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ring member's view merging: the single writer of its {@link MembershipView} and its {@link LinkTable}. Every
 * way the member learns something (its own verdicts and link reports, broadcasts, the gap of a NewObserver, a
 * state sync, the incarnation a message carries) becomes an event applied here; news reaches the listener exactly
 * once, since the view only moves forward, and makes the member re-derive its ring. It also starts and relays the
 * member's broadcasts, tells zombies (senders dead or superseded in the view) so, and runs anti-entropy: views that
 * differ from the emitter's for δ are exchanged. Part of one {@link RingMember}, on the member's thread only.
 */
final class ViewMerger {
    private static final Logger log = LoggerFactory.getLogger(ViewMerger.class);

    private final RingMember member;
    private final int self;
    private final int size;
    private final long delta;
    private final MembershipView view;
    private final LinkTable links = new LinkTable();
    private final BroadcastRelay relay;
    private final RingTransport transport;
    private final DetectorMetrics metrics;
    /** Members this member suspected, with the incarnation suspected, to recognise false suspicions. */
    private final Map<Integer, Long> suspected = new HashMap<>();
    /** Since when the emitter's heartbeats carry another digest than this view's, or NEVER. */
    private long mismatchSince = NEVER;
    private long linkSequence;

    /**
     * @param view         the member's view; this class is its only writer
     * @param dependencies the member's transport and meters (its listener is reached through the member)
     */
    ViewMerger(RingMember member, int self, int size, MembershipView view, BroadcastRelay relay, long delta,
               MemberDependencies dependencies) {
        this.member = member;
        this.self = self;
        this.size = size;
        this.delta = delta;
        this.view = view;
        this.relay = relay;
        this.transport = dependencies.transport();
        this.metrics = dependencies.metrics();
    }

    // ------------------------------------------------------------------ the view

    /** Order-independent hash of the view and the link reports; equal views have equal digests. */
    long digest() {
        return view.digest() ^ links.digest();
    }

    /** The link reports known, for a snapshot. */
    List<LinkStatus> linkEntries() {
        return links.entries();
    }

    /** Before the member starts: {@code members} (but this one) are dead at incarnation 0, as if broadcast. */
    void markDeadAtStart(int[] members) {
        for (int m : members) {
            if (m != self) {
                view.markDead(m, 0);
            }
        }
    }

    /**
     * Applies an event to the view; if it is news, tells the listener (exactly once, since the view
     * only moves forward) and re-derives the ring. Returns whether it was news.
     */
    boolean apply(DetectorEvent event) {
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
        member.learnt(event);
        member.reconcile(true);
        return true;
    }

    /** Someone says this member is dead at {@code inc}, or alive at it: news for the view, and maybe a rejoin. */
    private boolean learnSelfStatus(long inc, boolean dead) {
        boolean news = dead ? view.markDead(self, inc) : view.markAlive(self, inc);
        if (news) {
            member.learnt(dead ? new MemberFailed(self, inc) : new MemberRejoined(self, inc));
        }
        member.rejoinIfOutdated(inc, dead);
        return news;
    }

    /** The verdict on a silent emitter: dead at the incarnation known, told to the ring. */
    void declareDead(int emitter, long silentFor) {
        long inc = view.incarnation(emitter);
        metrics.suspicion(silentFor);
        log.info("member {}: suspects member {} (incarnation {}): no heartbeat for {} ms", self, emitter, inc,
                millis(silentFor));
        suspected.put(emitter, inc);
        MemberFailed event = new MemberFailed(emitter, inc);
        apply(event); // marks it dead, walks back to the next live emitter and sends it NewObserver
        originate(event);
    }

    /** A port of this member changed (the member is running): a link report, applied and broadcast if news. */
    void reportOwnLink(int port, boolean down) {
        long incarnation = member.incarnation();
        LinkStatus current = links.get(self, port);
        boolean noChange = current == null ? !down
                : current.down() == down && current.reporterIncarnation() == incarnation;
        if (noChange) {
            return;
        }
        long sequence = ++linkSequence;
        DetectorEvent event = down ? new LinkDown(self, incarnation, port, sequence) : new LinkUp(self, incarnation, port, sequence);
        log.info("member {}: reports its port {} {}", self, port, down ? "down" : "up");
        apply(event);
        originate(event);
    }

    // ------------------------------------------------------------------ messages

    /**
     * The sender of a message only a running member handles: a zombie is told so, nothing is handled while this
     * member is not running, and a newer incarnation of the sender is learnt. Returns whether to handle it.
     */
    boolean admit(int from, long inc) {
        if (isZombie(from, inc)) {
            answerZombie(from, inc);
            return false;
        }
        if (member.phase() != MemberPhase.RUNNING) {
            return false; // a NewObserver's sender repeats it every η until this member heartbeats it
        }
        learnIncarnation(from, inc);
        return true;
    }

    void onNewObserver(NewObserver n) {
        int from = n.from();
        if (!admit(from, n.fromIncarnation())) {
            return;
        }
        for (MemberStatus g : n.gap()) {
            mergeMember(g);
            if (member.phase() != MemberPhase.RUNNING) {
                return;
            }
        }
        if (member.observer() != from) {
            log.debug("member {}: NewObserver from {} is stale: member {} is alive in between", self, from,
                    member.observer());
        }
        // A new observer receives the current view, and a stale one learns why it was refused.
        sendState(from, StateKind.SYNC);
    }

    /** Merges a state sync's members and links. Returns whether its sender is a zombie (to be answered last). */
    boolean merge(StateSync s) {
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
        return zombie;
    }

    void onBroadcast(BroadcastCopy copy) {
        if (isZombie(copy.from(), copy.fromIncarnation())) {
            answerZombie(copy.from(), copy.fromIncarnation());
        }
        if (!apply(copy.event())) {
            metrics.broadcastDuplicate();
        }
        if (member.phase() != MemberPhase.STOPPED) {
            relay.forward(copy, member.incarnation());
        }
    }

    /** The sender is dead (or superseded) in this view: count a false suspicion, and show it the view. */
    void answerZombie(int from, long inc) {
        Long suspectedAt = suspected.get(from);
        if (suspectedAt != null && suspectedAt == inc) {
            suspected.remove(from);
            metrics.falseSuspicion();
            log.info("member {}: member {} (incarnation {}) was suspected but is alive; it will rejoin", self, from, inc);
        }
        if (member.phase() == MemberPhase.RUNNING) {
            sendState(from, StateKind.SYNC);
        }
    }

    /**
     * Anti-entropy: views differ briefly while a broadcast spreads; a difference lasting δ means one
     * side missed something (a lost datagram, more failures than the overlay tolerates), so the two
     * swap views. Costs nothing while views agree.
     */
    void compareDigests(int emitter, long theirs, long now) {
        if (theirs == digest()) {
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

    /** The emitter changed or the member left the ring: a difference with the old emitter's view is moot. */
    void forgetMismatch() {
        mismatchSince = NEVER;
    }

    void sendState(int to, StateKind kind) {
        if (member.phase() != MemberPhase.RUNNING) {
            return;
        }
        metrics.stateSync();
        transport.send(to, new StateSync(self, member.incarnation(), kind, view.entries(), links.entries()));
    }

    /** Starts a broadcast of {@code event} with this view's dead set as its topology. */
    void originate(DetectorEvent event) {
        relay.originate(event, view.deadMembers(), member.incarnation());
    }

    private void mergeMember(MemberStatus m) {
        apply(m.dead() ? new MemberFailed(m.member(), m.incarnation()) : new MemberRejoined(m.member(), m.incarnation()));
    }

    private void mergeLink(LinkStatus l) {
        if (l.reporter() == self) {
            // After a quick restart the ring may remember reports of this incarnation: continue after them.
            linkSequence = Math.max(linkSequence, l.sequence());
        }
        apply(l.down() ? new LinkDown(l.reporter(), l.reporterIncarnation(), l.port(), l.sequence())
                : new LinkUp(l.reporter(), l.reporterIncarnation(), l.port(), l.sequence()));
    }

    /** A running member's messages carry its incarnation: seeing a newer one is proof of a rejoin. */
    private void learnIncarnation(int from, long inc) {
        if (inc > view.incarnation(from)) {
            boolean wasDead = view.isDead(from);
            MemberRejoined event = new MemberRejoined(from, inc);
            if (apply(event) && wasDead && member.phase() == MemberPhase.RUNNING && from == member.emitter()) {
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
}
