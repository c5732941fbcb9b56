package org.fabricmanager.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.message.DetectorEvent.MemberFailed;
import org.fabricmanager.detector.message.DetectorEvent.MemberRejoined;
import org.fabricmanager.detector.message.Heartbeat;
import org.fabricmanager.detector.message.Suspicion;
import org.fabricmanager.detector.message.Suspicion.Kind;
import org.fabricmanager.detector.overlay.Overlay;
import org.junit.jupiter.api.Test;

/**
 * Local health and refutable suspicion on one member driven by hand (η 10 ms, δ 100 ms): a healthy member
 * keeps the SC'16 deadline, a late one waits longer, a suspect refutes once per incarnation, helpers
 * confirm only what they checked themselves.
 */
class LifeguardTest {
    private static final long MS = 1_000_000L;
    private static final long ETA = 10 * MS;
    private static final long DELTA = 100 * MS;

    private final ManualTransport net = new ManualTransport();
    private final List<DetectorEvent> events = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private RingMember running(int self, int n) {
        return running(self, n, -1);
    }

    private RingMember running(int self, int n, int witness) {
        RingParameters p = RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), Overlay.BMG).withWitness(witness);
        RingMember m = new RingMember(self, n, p, StartMode.BOOTSTRAP, net, events::add, new DetectorMetrics(registry));
        m.start();
        return m;
    }

    /** The emitter heartbeats every η up to and including {@code until}, on time. */
    private void heartbeats(RingMember m, int emitter, long until) {
        for (long t = net.now(); t <= until; t += ETA) {
            net.advanceTo(t);
            m.deliver(new Heartbeat(emitter, m.knownIncarnation(emitter), m.viewDigest()));
        }
    }

    private List<Suspicion> suspicions(Kind kind) {
        return net.sentOf(Suspicion.class).stream().filter(s -> s.kind() == kind).toList();
    }

    private List<Integer> recipients(Kind kind) {
        return net.sentWith(Suspicion.class).stream().filter(s -> ((Suspicion) s.message()).kind() == kind)
                .map(ManualTransport.Sent::to).toList();
    }

    private double count(String meter) {
        return registry.get(meter).counter().count();
    }

    @Test
    void aHealthyMemberAsksItsSilentEmitterToRefuteAtHalfDeltaAndDeclaresItDeadAtDelta() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 500 * MS);
        net.sent.clear();
        net.advanceTo(550 * MS - 1);
        assertThat(net.sentOf(Suspicion.class)).isEmpty();
        net.advanceTo(550 * MS);
        assertThat(m.suspectsEmitter()).isTrue();
        assertThat(recipients(Kind.SUSPECT)).containsExactly(2);
        assertThat(recipients(Kind.PROBE)).as("a healthy member's verdict is at δ anyway: no helpers").isEmpty();
        assertThat(events).isEmpty();
        net.advanceTo(600 * MS - 1);
        assertThat(events).isEmpty();
        net.advanceTo(600 * MS);
        assertThat(m.healthScore()).isZero();
        assertThat(events).as("the SC'16 deadline, δ after the last heartbeat").containsExactly(new MemberFailed(2, 0));
        assertThat(count(DetectorMetrics.SUSPICIONS_RAISED)).isEqualTo(1);
    }

    @Test
    void aSuspectThatAnswersStaysAliveAtItsNewIncarnation() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 500 * MS);
        net.advanceTo(580 * MS);
        assertThat(m.suspectsEmitter()).isTrue();
        m.deliver(new Suspicion(2, 1, Kind.ALIVE, 2, 1));
        assertThat(m.suspectsEmitter()).isFalse();
        assertThat(m.knownIncarnation(2)).isEqualTo(1);
        net.advanceTo(640 * MS);
        assertThat(events).as("an answer counts as hearing from it: no verdict at 600 ms, only its new incarnation")
                .containsExactly(new MemberRejoined(2, 1));
        events.clear();
        assertThat(count(DetectorMetrics.SUSPICIONS_REFUTED)).isEqualTo(1);
        assertThat(m.healthScore()).as("the silence was partly this member's own doing").isEqualTo(1);
        // still watched: silent again, it is declared dead once the point is forgiven (δ after it was
        // raised, and with it δ after the answer)
        net.advanceTo(680 * MS - 1);
        assertThat(events).isEmpty();
        net.advanceTo(680 * MS);
        assertThat(m.healthScore()).isZero();
        assertThat(events).containsExactly(new MemberFailed(2, 1));
    }

    @Test
    void aSuspectedMemberRefutesWithTheNextIncarnationOncePerIncarnationAndHeartbeatsAtOnce() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 50 * MS);
        net.sent.clear();
        m.deliver(new Suspicion(4, 0, Kind.SUSPECT, 3, 0));
        assertThat(m.incarnation()).isEqualTo(1);
        assertThat(m.knownIncarnation(3)).isEqualTo(1);
        assertThat(net.sentWith(Heartbeat.class)).extracting(ManualTransport.Sent::to).containsExactly(4);
        assertThat(net.sentOf(Heartbeat.class).get(0).fromIncarnation()).isEqualTo(1);
        assertThat(suspicions(Kind.ALIVE)).containsExactly(new Suspicion(3, 1, Kind.ALIVE, 3, 1));
        // a helper's request about the same incarnation: answered, no second increment
        m.deliver(new Suspicion(5, 0, Kind.SUSPECT, 3, 0));
        assertThat(m.incarnation()).isEqualTo(1);
        assertThat(recipients(Kind.ALIVE)).containsExactly(4, 5);
        // a suspicion of the new incarnation is refuted again
        m.deliver(new Suspicion(4, 0, Kind.SUSPECT, 3, 1));
        assertThat(m.incarnation()).isEqualTo(2);
        assertThat(count(DetectorMetrics.REFUTATIONS)).isEqualTo(2);
        assertThat(m.healthScore()).as("being suspected is evidence of its own lateness").isEqualTo(2);
    }

    @Test
    void aLateVerdictAboutTheRefutedIncarnationNoLongerKillsTheMember() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 50 * MS);
        m.deliver(new Suspicion(4, 0, Kind.SUSPECT, 3, 0));
        net.sent.clear();
        m.deliver(new org.fabricmanager.detector.message.StateSync(4, 0, org.fabricmanager.detector.message.StateKind.SYNC,
                List.of(new org.fabricmanager.detector.message.MemberStatus(3, 0, true)), List.of()));
        assertThat(m.phase()).as("dead@0 is older than alive@1: no rejoin").isEqualTo(MemberPhase.RUNNING);
        assertThat(m.incarnation()).isEqualTo(1);
        assertThat(count(DetectorMetrics.REJOINS)).isZero();
    }

    @Test
    void aMemberWhoseTimersSlipWidensItsTimeoutAndAccusesNobody() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 200 * MS);
        // the member's own timers fire 8 ms late (above η/2, below the pause threshold η) for a while
        long t = 200 * MS;
        for (int i = 0; i < 6; i++) {
            t += ETA + 8 * MS;
            net.jumpTo(t);
            m.deliver(new Heartbeat(2, 0, m.viewDigest()));
        }
        assertThat(m.healthScore()).isEqualTo(SuspicionPolicy.MAX_HEALTH_SCORE);
        // now the emitter's heartbeats are 1.8 δ apart: a healthy member would declare it dead at δ
        long last = t;
        net.advanceTo(last + 180 * MS);
        m.deliver(new Heartbeat(2, 0, m.viewDigest()));
        assertThat(events).isEmpty();
        assertThat(count(DetectorMetrics.SUSPICIONS)).isZero();
        assertThat(count(DetectorMetrics.SUSPICIONS_RAISED)).as("suspected, asked to refute, never declared").isEqualTo(1);
    }

    /** The member's timers keep firing 8 ms late (above η/2) from now until {@code until}. */
    private void slipUntil(long until) {
        for (long t = net.now() + ETA + 8 * MS; t <= until; t += ETA + 8 * MS) {
            net.jumpTo(t);
        }
    }

    /** Twenty heartbeats, received while the member's timers slip: returns the time of the last. */
    private long lateMemberHearing(RingMember m) {
        long t = 0;
        for (int i = 0; i < 20; i++) {
            t += ETA + 8 * MS;
            net.jumpTo(t);
            m.deliver(new Heartbeat(2, 0, m.viewDigest()));
        }
        assertThat(m.healthScore()).isEqualTo(SuspicionPolicy.MAX_HEALTH_SCORE);
        return t;
    }

    @Test
    void aMemberThatStaysLateDeclaresADeadEmitterAfterDeltaTimesOnePlusItsScoreAtTheLatest() {
        RingMember m = running(3, 8);
        long last = lateMemberHearing(m);
        slipUntil(last + 3 * DELTA);
        assertThat(events).as("no helper confirmed: it waits the longest").isEmpty();
        // δ·(1 + 3), plus one η of slack for a late timer and the lateness of the timers themselves
        slipUntil(last + 4 * DELTA + 3 * (ETA + 8 * MS));
        assertThat(events).containsExactly(new MemberFailed(2, 0));
    }

    @Test
    void aMemberWhoseTimersAreOnTimeAgainIsForgivenOnePointPerDelta() {
        RingMember m = running(3, 8);
        long last = lateMemberHearing(m);
        // score 3 at the last heartbeat, 2 after δ, 1 after 2δ: the verdict is due at δ·(1 + 1) = 2δ
        net.advanceTo(last + 2 * DELTA - 1);
        assertThat(events).isEmpty();
        net.advanceTo(last + 2 * DELTA + ETA);
        assertThat(events).containsExactly(new MemberFailed(2, 0));
        assertThat(m.healthScore()).isEqualTo(1);
    }

    @Test
    void confirmationsFromEveryHelperBringALateMembersVerdictBackToDelta() {
        RingMember m = running(3, 8);
        long last = lateMemberHearing(m);
        net.advanceTo(last + DELTA / 2);
        assertThat(recipients(Kind.PROBE)).as("helpers: its observer and the suspect's emitter").containsExactly(4, 1);
        net.advanceTo(last + 90 * MS);
        m.deliver(new Suspicion(4, 0, Kind.CONFIRM, 2, 0));
        m.deliver(new Suspicion(4, 0, Kind.CONFIRM, 2, 0)); // a duplicate counts once
        // one of two: the 3δ above δ shrink by log 2 / log 3 to 111 ms, verdict at δ + 111 ms
        net.advanceTo(last + 150 * MS);
        assertThat(events).as("one of two confirmations: still waiting").isEmpty();
        m.deliver(new Suspicion(1, 0, Kind.CONFIRM, 2, 0));
        net.advanceTo(net.now());
        assertThat(events).as("every helper confirmed: δ has passed, verdict now").containsExactly(new MemberFailed(2, 0));
    }

    @Test
    void aConfirmationFromAMemberNotAskedCountsForNothing() {
        RingMember m = running(3, 8);
        long last = lateMemberHearing(m);
        slipUntil(last + 90 * MS);
        m.deliver(new Suspicion(6, 0, Kind.CONFIRM, 2, 0));
        m.deliver(new Suspicion(7, 0, Kind.CONFIRM, 2, 0));
        slipUntil(last + 3 * DELTA);
        assertThat(events).isEmpty();
    }

    @Test
    void aHelperAsksTheSuspectToRefuteAndConfirmsOnlyASilenceItSawItself() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 100 * MS);
        net.sent.clear();
        // member 6 suspects 5 and asks this member to check
        m.deliver(new Suspicion(6, 0, Kind.PROBE, 5, 0));
        assertThat(net.sentWith(Suspicion.class)).extracting(ManualTransport.Sent::to).containsExactly(5);
        heartbeats(m, 2, 100 * MS + DELTA / 2);
        assertThat(suspicions(Kind.CONFIRM)).containsExactly(new Suspicion(3, 0, Kind.CONFIRM, 5, 0));
        assertThat(recipients(Kind.CONFIRM)).containsExactly(6);
        // member 7 suspects 1, which answers: no confirmation
        net.sent.clear();
        m.deliver(new Suspicion(7, 0, Kind.PROBE, 1, 0));
        m.deliver(new Suspicion(1, 1, Kind.ALIVE, 1, 1));
        heartbeats(m, 2, net.now() + DELTA);
        assertThat(suspicions(Kind.CONFIRM)).isEmpty();
    }

    @Test
    void aHelperRunsABoundedNumberOfChecks() {
        RingMember m = running(0, 64);
        net.sent.clear();
        for (int suspect = 10; suspect < 30; suspect++) {
            m.deliver(new Suspicion(suspect + 1, 0, Kind.PROBE, suspect, 0));
        }
        assertThat(suspicions(Kind.SUSPECT)).hasSize(SuspicionPolicy.MAX_PENDING_CHECKS);
    }

    /**
     * Two members of one process on two event loops (two hand-driven clocks kept together): member 5's loop falls
     * behind, member 3's does not. Member 3's own timers are on time, but its process is late, so it waits as a late
     * member does before it declares its silent emitter dead.
     */
    @Test
    void aMemberOnTimeWaitsLongerWhileAnotherMemberOfItsProcessIsLate() {
        ProcessHealth process = new ProcessHealth();
        RingParameters p = RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), Overlay.BMG);
        RingMember m = new RingMember(3, 8, p, StartMode.BOOTSTRAP, new MemberDependencies(net, events::add, new DetectorMetrics(registry), process));
        m.start();
        ManualTransport otherLoop = new ManualTransport();
        RingMember other = new RingMember(5, 8, p, StartMode.BOOTSTRAP, new MemberDependencies(otherLoop, e -> { },
                new DetectorMetrics(registry), process));
        other.start();
        heartbeats(m, 2, 200 * MS);
        otherLoop.advanceTo(200 * MS);
        long last = net.now();
        // the other loop's timers fire 8 ms late (above η/2) from now on; this member's own clock runs on time
        for (long t = last + ETA + 8 * MS; t <= last + 3 * DELTA; t += ETA + 8 * MS) {
            otherLoop.jumpTo(t);
            net.advanceTo(t);
        }
        assertThat(m.healthScore()).as("its own timers were on time").isZero();
        assertThat(process.score()).isEqualTo(SuspicionPolicy.MAX_HEALTH_SCORE);
        assertThat(events).as("a healthy process would have declared member 2 dead at δ").isEmpty();
        // the lag goes on: δ·(1 + 3) after the last heartbeat, the verdict comes all the same
        for (long t = otherLoop.now() + ETA + 8 * MS; t <= last + 4 * DELTA + 2 * ETA; t += ETA + 8 * MS) {
            otherLoop.jumpTo(t);
            net.advanceTo(t);
        }
        assertThat(events).containsExactly(new MemberFailed(2, 0));
    }

    @Test
    void aLateProcessCountsForNothingWithoutLifeguard() {
        ProcessHealth process = new ProcessHealth();
        for (int i = 1; i <= 5; i++) {
            process.timerFired(20 * MS, ETA / 2, DELTA, i * MS);
        }
        RingParameters p = RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), Overlay.BMG).withLifeguard(false);
        RingMember m = new RingMember(3, 8, p, StartMode.BOOTSTRAP, new MemberDependencies(net, events::add, new DetectorMetrics(registry), process));
        m.start();
        heartbeats(m, 2, 50 * MS);
        net.advanceTo(50 * MS + DELTA);
        assertThat(events).containsExactly(new MemberFailed(2, 0));
    }

    @Test
    void withoutLifeguardTheMemberDeclaresAtDeltaWithoutAnySuspicionMessage() {
        RingParameters p = RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), Overlay.BMG).withLifeguard(false);
        RingMember m = new RingMember(3, 8, p, StartMode.BOOTSTRAP, net, events::add, new DetectorMetrics(registry));
        m.start();
        long t = 0;
        for (int i = 0; i < 20; i++) {
            t += ETA + 8 * MS;
            net.jumpTo(t);
            m.deliver(new Heartbeat(2, 0, m.viewDigest()));
        }
        assertThat(m.healthScore()).isZero();
        net.advanceTo(t + DELTA);
        assertThat(events).containsExactly(new MemberFailed(2, 0));
        assertThat(net.sentOf(Suspicion.class)).isEmpty();
    }

    @Test
    void anObserverTellsTheWitnessOnceWhenItStartsSuspectingAndTheVerdictStaysAtDelta() {
        RingMember m = running(3, 8, 0);
        heartbeats(m, 2, 500 * MS);
        net.sent.clear();
        net.advanceTo(550 * MS);
        assertThat(recipients(Kind.NOTICE)).containsExactly(0);
        assertThat(suspicions(Kind.NOTICE)).containsExactly(new Suspicion(3, 0, Kind.NOTICE, 2, 0));
        net.advanceTo(599 * MS);
        assertThat(recipients(Kind.NOTICE)).as("not repeated with the SUSPECTs").containsExactly(0);
        assertThat(events).isEmpty();
        net.advanceTo(600 * MS);
        assertThat(events).containsExactly(new MemberFailed(2, 0));
    }

    @Test
    void withoutAWitnessNobodyIsNoticed() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 500 * MS);
        net.advanceTo(600 * MS);
        assertThat(suspicions(Kind.NOTICE)).isEmpty();
        assertThat(events).containsExactly(new MemberFailed(2, 0));
    }

    @Test
    void theWitnessTellsItsListenerOnlyOfNoticesFromTheSuspectsObserverAboutItsCurrentIncarnation() {
        RingMember witness = running(0, 8, 0);
        heartbeats(witness, 7, 20 * MS);
        witness.deliver(new Suspicion(5, 0, Kind.NOTICE, 4, 0));
        assertThat(events).as("member 5 observes 4").containsExactly(new DetectorEvent.MemberSuspected(4, 0, 5));
        events.clear();
        witness.deliver(new Suspicion(6, 0, Kind.NOTICE, 4, 0));
        witness.deliver(new Suspicion(3, 0, Kind.NOTICE, 4, 0));
        witness.deliver(new Suspicion(5, 0, Kind.NOTICE, 5, 0));
        witness.deliver(new Suspicion(1, 0, Kind.NOTICE, 0, 0));
        assertThat(events).as("not the observer, the suspect itself, or about the witness").isEmpty();
        // member 4 is heard at incarnation 1 (it refuted someone's suspicion)
        witness.deliver(new Suspicion(4, 1, Kind.ALIVE, 4, 1));
        assertThat(witness.knownIncarnation(4)).isEqualTo(1);
        events.clear();
        witness.deliver(new Suspicion(5, 0, Kind.NOTICE, 4, 0));
        assertThat(events).as("an incarnation the suspect already left").isEmpty();
        witness.deliver(new Suspicion(5, 0, Kind.NOTICE, 4, 1));
        assertThat(events).containsExactly(new DetectorEvent.MemberSuspected(4, 1, 5));
    }

    @Test
    void aMemberThatIsNotTheWitnessIgnoresNotices() {
        RingMember m = running(3, 8, 0);
        m.deliver(new Suspicion(5, 0, Kind.NOTICE, 4, 0));
        assertThat(events).isEmpty();
    }

    @Test
    void aWitnessThatObservesTheSuspectItselfTellsItsListenerWithoutADatagram() {
        RingMember m = running(0, 8, 0);
        heartbeats(m, 7, 500 * MS);
        net.sent.clear();
        net.advanceTo(550 * MS);
        assertThat(events).containsExactly(new DetectorEvent.MemberSuspected(7, 0, 0));
        assertThat(suspicions(Kind.NOTICE)).isEmpty();
    }
}
