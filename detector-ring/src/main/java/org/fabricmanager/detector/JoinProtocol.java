package org.fabricmanager.detector;

import org.fabricmanager.detector.message.DetectorEvent.MemberRejoined;
import org.fabricmanager.detector.message.Join;
import org.fabricmanager.detector.message.StateKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins of a ring member, both ways: while the member is joining, it asks one candidate after another to admit it
 * (a Join every δ, to the live members of its view first) until a running member accepts it at its incarnation, and
 * after one unanswered round it starts with its own view; while it runs, it admits members that ask at an
 * incarnation the view allows and broadcasts them as rejoined. Part of one {@link RingMember}, on the member's
 * thread only: it holds the join timer and candidate, the member its phase and incarnation.
 */
final class JoinProtocol {
    private static final Logger log = LoggerFactory.getLogger(JoinProtocol.class);

    private final RingMember member;
    private final int self;
    private final int size;
    private final long delta;
    private final MembershipView view;
    private final ViewMerger views;
    private final RingTransport transport;
    private TimerHandle joinTimer;
    private int joinCandidate;
    private int joinAttempts;

    /**
     * @param view  the member's view, read only here
     * @param views the writer of that view, which applies admissions and sends state
     * @param delta how long a Join waits for an answer before the next candidate is asked
     */
    JoinProtocol(RingMember member, int self, int size, MembershipView view, ViewMerger views, long delta,
                 RingTransport transport) {
        this.member = member;
        this.self = self;
        this.size = size;
        this.view = view;
        this.views = views;
        this.delta = delta;
        this.transport = transport;
    }

    /** The member has just become joining: the first candidate is asked at once. */
    void start() {
        joinAttempts = 0;
        joinCandidate = nextJoinCandidate(self);
        sendJoin(joinCandidate);
    }

    void cancel() {
        if (joinTimer != null) {
            joinTimer.cancel();
            joinTimer = null;
        }
    }

    /** A member asks this running one to admit it. */
    void onJoin(Join j) {
        if (member.phase() != MemberPhase.RUNNING) {
            return; // only a running member's view is worth handing out
        }
        int from = j.from();
        long inc = j.fromIncarnation();
        long known = view.incarnation(from);
        boolean admissible = inc > known || (inc == known && !view.isDead(from));
        if (!admissible) {
            log.debug("member {}: refuses join of member {} at incarnation {} (known {}{})", self, from, inc, known,
                    view.isDead(from) ? ", dead" : "");
            views.sendState(from, StateKind.JOIN_REJECTED);
            return;
        }
        MemberRejoined event = new MemberRejoined(from, inc);
        boolean news = inc > known && views.apply(event);
        views.sendState(from, StateKind.JOIN_ACCEPTED);
        if (news) {
            log.info("member {}: admits member {} at incarnation {}", self, from, inc);
            views.originate(event);
        }
    }

    /**
     * Member {@code from} answered this joining member's Join (its state already merged into the view): admitted
     * if the view now has this member alive at its incarnation; else it asks again, above any incarnation of it
     * the view knows.
     */
    void answered(int from, boolean accepted) {
        if (accepted && !view.isDead(self) && view.incarnation(self) == member.incarnation()) {
            log.info("member {}: admitted by member {} at incarnation {}; {} dead member(s) known", self, from,
                    member.incarnation(), view.deadCount());
            member.becomeRunning(true);
        } else {
            member.takeIncarnationAbove(view.incarnation(self));
            sendJoin(from);
        }
    }

    private void onJoinTimer() {
        joinTimer = null;
        if (member.phase() != MemberPhase.JOINING) {
            return;
        }
        joinAttempts++;
        if (joinAttempts >= size - 1) {
            long incarnation = member.incarnation();
            log.warn("member {}: no running member answered {} join requests; starts with its own view "
                    + "at incarnation {}", self, joinAttempts, incarnation);
            views.apply(new MemberRejoined(self, incarnation)); // marks itself alive, told once
            member.becomeRunning(true);
            return;
        }
        joinCandidate = nextJoinCandidate(joinCandidate);
        sendJoin(joinCandidate);
    }

    private void sendJoin(int to) {
        if (joinTimer != null) {
            joinTimer.cancel();
        }
        log.debug("member {}: asks member {} to admit it at incarnation {}", self, to, member.incarnation());
        transport.send(to, new Join(self, member.incarnation()));
        joinTimer = transport.schedule(delta, this::onJoinTimer);
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
}
