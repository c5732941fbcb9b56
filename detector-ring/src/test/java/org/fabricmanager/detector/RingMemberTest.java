package org.fabricmanager.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.detector.message.BroadcastCopy;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.message.DetectorEvent.LinkDown;
import org.fabricmanager.detector.message.DetectorEvent.LinkUp;
import org.fabricmanager.detector.message.DetectorEvent.MemberFailed;
import org.fabricmanager.detector.message.DetectorEvent.MemberRejoined;
import org.fabricmanager.detector.message.Heartbeat;
import org.fabricmanager.detector.message.Join;
import org.fabricmanager.detector.message.LinkStatus;
import org.fabricmanager.detector.message.MemberStatus;
import org.fabricmanager.detector.message.NewObserver;
import org.fabricmanager.detector.message.StateKind;
import org.fabricmanager.detector.message.StateSync;
import org.fabricmanager.detector.overlay.Overlay;
import org.junit.jupiter.api.Test;

/** One member driven by hand: every message it sends and every event it reports is checked. */
class RingMemberTest {
    private static final long MS = 1_000_000L;
    private static final long ETA = 10 * MS;
    private static final long DELTA = 100 * MS;

    private final ManualTransport net = new ManualTransport();
    private final List<DetectorEvent> events = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private RingMember member(int self, int n, StartMode mode, Overlay overlay) {
        // the SC'16 state machine exactly; LifeguardTest covers local health and refutable suspicion
        RingParameters p = RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), overlay).withLifeguard(false);
        return new RingMember(self, n, p, mode, net, events::add, new DetectorMetrics(registry));
    }

    private RingMember running(int self, int n) {
        RingMember m = member(self, n, StartMode.BOOTSTRAP, Overlay.HYPERCUBE);
        m.start();
        return m;
    }

    /** The emitter heartbeats every η up to and including {@code until}. */
    private void heartbeats(RingMember m, int emitter, long until) {
        for (long t = net.now(); t <= until; t += ETA) {
            net.advanceTo(t);
            m.deliver(new Heartbeat(emitter, 0, m.viewDigest()));
        }
    }

    private double count(String meter) {
        return registry.get(meter).counter().count();
    }

    @Test
    void heartbeatsItsObserverOncePerEtaAndNothingElseWhileAllIsWell() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 1000 * MS);
        net.advanceTo(1000 * MS);
        List<ManualTransport.Sent> beats = net.sentWith(Heartbeat.class);
        assertThat(beats).hasSize(101); // one at start, then one per η for 1 s
        assertThat(beats).allMatch(s -> s.to() == 4);
        assertThat(net.sent).hasSize(101);
        assertThat(events).isEmpty();
        assertThat(m.emitter()).isEqualTo(2);
        assertThat(m.observer()).isEqualTo(4);
    }

    @Test
    void suspectsASilentEmitterAfterDeltaWalksBackAndBroadcasts() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 500 * MS);
        net.sent.clear();
        net.advanceTo(600 * MS - 1);
        assertThat(events).isEmpty();
        net.advanceTo(600 * MS);
        assertThat(events).containsExactly(new MemberFailed(2, 0));
        assertThat(m.emitter()).isEqualTo(1);
        assertThat(m.deadMembers()).containsExactly(2);
        NewObserver no = net.sentOf(NewObserver.class).get(0);
        assertThat(net.sentWith(NewObserver.class).get(0).to()).isEqualTo(1);
        assertThat(no.gap()).containsExactly(new MemberStatus(2, 0, true));
        List<BroadcastCopy> copies = net.sentOf(BroadcastCopy.class);
        assertThat(copies).isNotEmpty().allMatch(c -> c.event().equals(new MemberFailed(2, 0))
                && c.source() == 3 && java.util.Arrays.equals(c.sourceDead(), new int[] {2}));
        assertThat(count(DetectorMetrics.SUSPICIONS)).isEqualTo(1);

        // The new emitter stays silent too: suspected 2δ later, the NewObserver goes one further back.
        net.sent.clear();
        net.advanceTo(800 * MS - 1);
        assertThat(events).hasSize(1);
        assertThat(net.sentOf(NewObserver.class)).as("NewObserver repeated every η until heard").hasSize(19);
        net.advanceTo(800 * MS);
        assertThat(events).containsExactly(new MemberFailed(2, 0), new MemberFailed(1, 0));
        assertThat(m.emitter()).isEqualTo(0);
        NewObserver last = net.sentOf(NewObserver.class).get(net.sentOf(NewObserver.class).size() - 1);
        assertThat(last.gap()).containsExactly(new MemberStatus(2, 0, true), new MemberStatus(1, 0, true));
    }

    private RingMember withGrace(int self, int n, long graceNanos) {
        RingParameters p = RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), Overlay.HYPERCUBE)
                .withStartupGrace(Duration.ofNanos(graceNanos));
        RingMember m = new RingMember(self, n, p, StartMode.BOOTSTRAP, net, events::add, new DetectorMetrics(registry));
        m.start();
        return m;
    }

    @Test
    void withoutAGraceAnEmitterThatNeverStartsIsSuspectedAfterTwoDelta() {
        RingMember m = running(0, 8);
        net.advanceTo(2 * DELTA - 1);
        assertThat(events).isEmpty();
        net.advanceTo(2 * DELTA);
        assertThat(events).containsExactly(new MemberFailed(7, 0));
    }

    @Test
    void aStartUpGraceWaitsForAnEmitterThatStartsLate() {
        RingMember m = withGrace(0, 8, 2000 * MS);
        net.advanceTo(1500 * MS);
        assertThat(events).as("emitter 7 not started yet, within the grace").isEmpty();
        heartbeats(m, 7, 3000 * MS);
        net.advanceTo(3000 * MS);
        assertThat(events).isEmpty();
        assertThat(m.deadMembers()).isEmpty();
    }

    @Test
    void aStartUpGraceEndsWithASuspicionWhenTheEmitterNeverStarts() {
        RingMember m = withGrace(0, 8, 2000 * MS);
        net.advanceTo(2000 * MS - 1);
        assertThat(events).isEmpty();
        net.advanceTo(2000 * MS);
        assertThat(events).containsExactly(new MemberFailed(7, 0));
        // the next emitter back gets the usual 2δ, not another grace
        net.advanceTo(2000 * MS + 2 * DELTA);
        assertThat(events).containsExactly(new MemberFailed(7, 0), new MemberFailed(6, 0));
    }

    @Test
    void anEmitterHeardWithinTheGraceIsSuspectedAfterDeltaOfSilence() {
        RingMember m = withGrace(0, 8, 5000 * MS);
        heartbeats(m, 7, 300 * MS);
        net.advanceTo(300 * MS + DELTA - 1);
        assertThat(events).isEmpty();
        net.advanceTo(300 * MS + DELTA);
        assertThat(events).containsExactly(new MemberFailed(7, 0));
    }

    @Test
    void endingTheGraceEarlyLeavesASilentEmitterTwoDelta() {
        RingMember m = withGrace(0, 8, 60_000 * MS);
        net.advanceTo(700 * MS);
        m.endStartupGrace();
        net.advanceTo(700 * MS + 2 * DELTA - 1);
        assertThat(events).isEmpty();
        net.advanceTo(700 * MS + 2 * DELTA);
        assertThat(events).containsExactly(new MemberFailed(7, 0));
    }

    @Test
    void endingTheGraceDoesNotShortenAHeardEmittersDeadline() {
        RingMember m = withGrace(0, 8, 60_000 * MS);
        heartbeats(m, 7, 500 * MS);
        m.endStartupGrace();
        heartbeats(m, 7, 2000 * MS);
        net.advanceTo(2000 * MS + DELTA - 1);
        assertThat(events).isEmpty();
        assertThat(m.emitter()).isEqualTo(7);
    }

    @Test
    void theStartUpGraceDefaultsToTwoDeltaAndIsNeverShorter() {
        RingParameters p = RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), Overlay.HYPERCUBE)
                .withStartupGrace(Duration.ofNanos(60_000 * MS));
        assertThat(p.startupGrace()).isEqualTo(Duration.ofMinutes(1));
        assertThat(RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), Overlay.HYPERCUBE).startupGrace())
                .isEqualTo(Duration.ofNanos(2 * DELTA));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> p.withStartupGrace(Duration.ofNanos(DELTA)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice the suspicion timeout");
    }

    @Test
    void stopsRepeatingNewObserverOnceTheNewEmitterHeartbeats() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 100 * MS);
        net.advanceTo(200 * MS); // suspects 2
        m.deliver(new Heartbeat(1, 0, m.viewDigest()));
        net.sent.clear();
        heartbeats(m, 1, 1000 * MS);
        assertThat(net.sentOf(NewObserver.class)).isEmpty();
        assertThat(events).containsExactly(new MemberFailed(2, 0));
    }

    @Test
    void ignoresAStaleNewObserverFromBeyondALiveObserver() {
        RingMember m = running(3, 8);
        // Member 4 rejoined at incarnation 1, which member 6 has not heard of yet.
        m.deliver(new StateSync(2, 0, StateKind.SYNC, List.of(new MemberStatus(4, 1, false)), List.of()));
        net.sent.clear();
        m.deliver(new NewObserver(6, 0, List.of(new MemberStatus(5, 0, true), new MemberStatus(4, 0, true))));
        assertThat(m.observer()).isEqualTo(4);
        assertThat(m.isDead(4)).isFalse();
        StateSync answer = net.sentOf(StateSync.class).get(0);
        assertThat(net.sentWith(StateSync.class).get(0).to()).isEqualTo(6);
        assertThat(answer.members()).contains(new MemberStatus(4, 1, false));
    }

    @Test
    void acceptsANewObserverWhoseGapIsDeadAndSendsItTheDeadSet() {
        RingMember m = running(3, 8);
        m.deliver(new StateSync(2, 0, StateKind.SYNC, List.of(new MemberStatus(0, 0, true)), List.of()));
        net.sent.clear();
        m.deliver(new NewObserver(6, 0, List.of(new MemberStatus(5, 0, true), new MemberStatus(4, 0, true))));
        assertThat(m.observer()).isEqualTo(6);
        assertThat(net.sentWith(Heartbeat.class)).extracting(ManualTransport.Sent::to).containsExactly(6);
        StateSync answer = net.sentOf(StateSync.class).get(0);
        assertThat(answer.members()).extracting(MemberStatus::member).containsExactly(0, 4, 5);
        assertThat(events).containsExactly(new MemberFailed(0, 0), new MemberFailed(5, 0), new MemberFailed(4, 0));
    }

    @Test
    void aLateSuspicionTimerGivesOnePeriodOfSlackInsteadOfSuspecting() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 100 * MS);
        net.jumpTo(350 * MS); // the member itself was paused; its timer was due at 200 ms
        assertThat(events).as("no suspicion right after a local pause").isEmpty();
        net.advanceTo(450 * MS - 1);
        assertThat(events).isEmpty();
        net.advanceTo(450 * MS);
        assertThat(events).containsExactly(new MemberFailed(2, 0));
    }

    @Test
    void anOnTimeSuspicionTimerSuspectsAtTheDeadline() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 100 * MS);
        net.advanceTo(200 * MS);
        assertThat(events).containsExactly(new MemberFailed(2, 0));
    }

    @Test
    void countsAndLogsAHeartbeatSentLate() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 50 * MS);
        assertThat(count(DetectorMetrics.HEARTBEATS_LATE)).isZero();
        net.jumpTo(95 * MS); // due at 60 ms, 35 ms late > η
        assertThat(count(DetectorMetrics.HEARTBEATS_LATE)).isEqualTo(1);
        net.sent.clear();
        net.advanceTo(105 * MS);
        assertThat(net.sentWith(Heartbeat.class)).extracting(ManualTransport.Sent::at).containsExactly(105 * MS);
    }

    @Test
    void stopsObservingAndHeartbeatingWhenEveryOtherMemberIsDead() {
        RingMember m = running(0, 3);
        m.deliver(new StateSync(1, 0, StateKind.SYNC,
                List.of(new MemberStatus(1, 0, true), new MemberStatus(2, 0, true)), List.of()));
        assertThat(m.emitter()).isEqualTo(-1);
        assertThat(m.observer()).isEqualTo(-1);
        net.sent.clear();
        net.advanceTo(2000 * MS);
        assertThat(net.sent).isEmpty();
        assertThat(events).containsExactly(new MemberFailed(1, 0), new MemberFailed(2, 0));
    }

    @Test
    void aMemberDeclaredDeadStopsHeartbeatingAndRejoinsWithAHigherIncarnation() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 50 * MS);
        net.sent.clear();
        m.deliver(new StateSync(4, 0, StateKind.SYNC, List.of(new MemberStatus(3, 0, true)), List.of()));
        assertThat(events).containsExactly(new MemberFailed(3, 0));
        assertThat(m.phase()).isEqualTo(MemberPhase.JOINING);
        assertThat(m.incarnation()).isEqualTo(1);
        assertThat(net.sentWith(Join.class)).extracting(ManualTransport.Sent::to).containsExactly(4);
        assertThat(net.sentOf(Join.class).get(0).fromIncarnation()).isEqualTo(1);
        net.sent.clear();
        net.advanceTo(90 * MS);
        assertThat(net.sentOf(Heartbeat.class)).as("a zombie does not heartbeat").isEmpty();

        m.deliver(new StateSync(4, 0, StateKind.JOIN_ACCEPTED, List.of(new MemberStatus(3, 1, false)), List.of()));
        assertThat(m.phase()).isEqualTo(MemberPhase.RUNNING);
        assertThat(events).containsExactly(new MemberFailed(3, 0), new MemberRejoined(3, 1));
        assertThat(net.sentOf(Heartbeat.class)).singleElement().satisfies(h -> assertThat(h.fromIncarnation()).isEqualTo(1));
        assertThat(net.sentWith(NewObserver.class)).extracting(ManualTransport.Sent::to).containsExactly(2);
        assertThat(count(DetectorMetrics.REJOINS)).isEqualTo(1);
    }

    @Test
    void ignoresAFailureOfAnOlderIncarnation() {
        RingMember m = running(3, 8);
        m.deliver(copy(6, new MemberRejoined(5, 2), new int[0]));
        m.deliver(copy(6, new MemberFailed(5, 1), new int[] {5}));
        assertThat(m.isDead(5)).isFalse();
        assertThat(events).containsExactly(new MemberRejoined(5, 2));
    }

    @Test
    void deliversEachEventOnceHoweverManyCopiesAndRoutesBringIt() {
        RingMember m = running(3, 16);
        MemberFailed failure = new MemberFailed(9, 0);
        for (int tree = 0; tree < 4; tree++) {
            m.deliver(new BroadcastCopy(11 + tree, 0, 10, 0, 1, 0, tree, new int[] {9}, failure));
        }
        m.deliver(new StateSync(2, 0, StateKind.SYNC, List.of(new MemberStatus(9, 0, true)), List.of()));
        m.deliver(new NewObserver(4, 0, List.of(new MemberStatus(9, 0, true))));
        assertThat(events).containsExactly(failure);
        assertThat(count(DetectorMetrics.BROADCASTS_DUPLICATE)).isEqualTo(3);
    }

    @Test
    void hypercubeForwardsEveryCopyAlongItsOwnTree() {
        RingMember m = running(3, 16);
        net.sent.clear();
        // Source 0, no known dead: member 3 is coordinate 3, which has children in trees 0 and 1.
        m.deliver(new BroadcastCopy(1, 0, 0, 0, 1, 0, 0, new int[0], new MemberFailed(9, 0)));
        int afterFirst = net.sentOf(BroadcastCopy.class).size();
        m.deliver(new BroadcastCopy(2, 0, 0, 0, 1, 0, 1, new int[0], new MemberFailed(9, 0)));
        assertThat(afterFirst).isPositive();
        assertThat(net.sentOf(BroadcastCopy.class).size()).isGreaterThan(afterFirst);
        assertThat(net.sentOf(BroadcastCopy.class)).allMatch(c -> c.from() == 3 && c.source() == 0);
    }

    @Test
    void binomialGraphForwardsOnlyTheFirstCopyOfABroadcast() {
        RingMember m = member(3, 16, StartMode.BOOTSTRAP, Overlay.BMG);
        m.start();
        net.sent.clear();
        m.deliver(new BroadcastCopy(2, 0, 0, 0, 1, 0, 0, new int[0], new MemberFailed(9, 0)));
        int forwarded = net.sentOf(BroadcastCopy.class).size();
        m.deliver(new BroadcastCopy(4, 0, 0, 0, 1, 0, 0, new int[0], new MemberFailed(9, 0)));
        assertThat(forwarded).isEqualTo(BinomialDegree.of(16) - 1);
        assertThat(net.sentOf(BroadcastCopy.class)).hasSize(forwarded);
        assertThat(net.sentWith(BroadcastCopy.class)).noneMatch(s -> s.to() == 2);
    }

    @Test
    void reportsOwnLinkFaultsToItsListenerAndBroadcastsThemInOrder() {
        RingMember m = running(3, 8);
        net.sent.clear();
        m.reportLinkDown(7);
        m.reportLinkDown(7);
        m.reportLinkUp(7);
        assertThat(events).containsExactly(new LinkDown(3, 0, 7, 1), new LinkUp(3, 0, 7, 2));
        assertThat(net.sentOf(BroadcastCopy.class)).extracting(BroadcastCopy::event)
                .containsOnly(new LinkDown(3, 0, 7, 1), new LinkUp(3, 0, 7, 2));
        assertThat(count(DetectorMetrics.BROADCASTS_ORIGINATED)).isEqualTo(2);
    }

    @Test
    void ignoresALateCopyOfAnOlderLinkReport() {
        RingMember m = running(3, 8);
        m.deliver(copy(5, new LinkUp(5, 0, 2, 2), new int[0]));
        m.deliver(copy(5, new LinkDown(5, 0, 2, 1), new int[0]));
        assertThat(events).containsExactly(new LinkUp(5, 0, 2, 2));
        assertThat(m.snapshot().links()).containsExactly(new LinkStatus(5, 0, 2, 2, false));
    }

    @Test
    void aJoinerLearnsItsIncarnationAndTheDeadSetBeforeObserving() {
        RingMember m = member(3, 8, StartMode.JOIN, Overlay.HYPERCUBE);
        m.start();
        assertThat(m.phase()).isEqualTo(MemberPhase.JOINING);
        assertThat(net.sentWith(Join.class)).extracting(ManualTransport.Sent::to).containsExactly(4);
        m.deliver(new StateSync(4, 0, StateKind.JOIN_REJECTED,
                List.of(new MemberStatus(2, 0, true), new MemberStatus(3, 0, true)), List.of()));
        assertThat(m.incarnation()).isEqualTo(1);
        assertThat(net.sentOf(Join.class)).extracting(Join::fromIncarnation).containsExactly(0L, 1L);
        m.deliver(new StateSync(4, 0, StateKind.JOIN_ACCEPTED,
                List.of(new MemberStatus(2, 0, true), new MemberStatus(3, 1, false)), List.of()));
        assertThat(m.phase()).isEqualTo(MemberPhase.RUNNING);
        assertThat(m.emitter()).isEqualTo(1);
        assertThat(m.observer()).isEqualTo(4);
        assertThat(events).containsExactly(new MemberFailed(2, 0), new MemberFailed(3, 0), new MemberRejoined(3, 1));
        assertThat(net.sentWith(NewObserver.class)).extracting(ManualTransport.Sent::to).containsExactly(1);
    }

    @Test
    void aJoinerTriesTheNextMemberWhenNoAnswerComes() {
        RingMember m = member(6, 8, StartMode.JOIN, Overlay.HYPERCUBE);
        m.start();
        net.advanceTo(3 * DELTA);
        assertThat(net.sentWith(Join.class)).extracting(ManualTransport.Sent::to).containsExactly(7, 0, 1, 2);
        assertThat(m.phase()).isEqualTo(MemberPhase.JOINING);
    }

    @Test
    void aRunningMemberAdmitsANewerIncarnationAndRefusesAnOlderOne() {
        RingMember m = running(3, 8);
        m.deliver(new StateSync(4, 0, StateKind.SYNC, List.of(new MemberStatus(2, 0, true)), List.of()));
        net.sent.clear();
        m.deliver(new Join(2, 0));
        assertThat(net.sentOf(StateSync.class)).extracting(StateSync::kind).containsExactly(StateKind.JOIN_REJECTED);
        net.sent.clear();
        m.deliver(new Join(2, 1));
        assertThat(net.sentOf(StateSync.class)).extracting(StateSync::kind).containsExactly(StateKind.JOIN_ACCEPTED);
        assertThat(net.sentOf(StateSync.class).get(0).members()).contains(new MemberStatus(2, 1, false));
        assertThat(net.sentOf(BroadcastCopy.class)).isNotEmpty().allMatch(c -> c.event().equals(new MemberRejoined(2, 1)));
        assertThat(m.emitter()).isEqualTo(2);
        assertThat(events).containsExactly(new MemberFailed(2, 0), new MemberRejoined(2, 1));
    }

    @Test
    void answersAZombieWithItsDeathAndCountsTheFalseSuspicion() {
        RingMember m = running(3, 8);
        heartbeats(m, 2, 100 * MS);
        net.advanceTo(200 * MS); // suspects 2
        net.sent.clear();
        m.deliver(new Heartbeat(2, 0, 0));
        assertThat(count(DetectorMetrics.FALSE_SUSPICIONS)).isEqualTo(1);
        assertThat(net.sentWith(StateSync.class)).singleElement().satisfies(s -> {
            assertThat(s.to()).isEqualTo(2);
            assertThat(((StateSync) s.message()).members()).contains(new MemberStatus(2, 0, true));
        });
    }

    @Test
    void exchangesViewsWhenTheEmittersDigestDiffersForLongerThanDelta() {
        RingMember m = running(3, 8);
        net.sent.clear();
        for (long t = 0; t <= 350 * MS; t += ETA) {
            net.advanceTo(t);
            m.deliver(new Heartbeat(2, 0, 12345L));
        }
        List<StateSync> syncs = net.sentOf(StateSync.class);
        assertThat(syncs).hasSize(3).allMatch(s -> s.kind() == StateKind.SYNC_REPLY_WANTED);
        assertThat(net.sentWith(StateSync.class)).allMatch(s -> s.to() == 2);
    }

    @Test
    void aThrowingListenerDoesNotStopTheMember() {
        RingParameters p = RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), Overlay.HYPERCUBE);
        RingMember m = new RingMember(3, 8, p, StartMode.BOOTSTRAP, net, e -> {
            throw new IllegalStateException("listener bug");
        }, new DetectorMetrics(registry));
        m.start();
        heartbeats(m, 2, 100 * MS);
        net.advanceTo(200 * MS);
        assertThat(m.isDead(2)).isTrue();
        assertThat(m.emitter()).isEqualTo(1);
        assertThat(m.phase()).isEqualTo(MemberPhase.RUNNING);
    }

    @Test
    void ignoresEverythingAfterStop() {
        RingMember m = running(3, 8);
        m.stop();
        net.sent.clear();
        m.deliver(new StateSync(4, 0, StateKind.SYNC, List.of(new MemberStatus(5, 0, true)), List.of()));
        net.advanceTo(5000 * MS);
        assertThat(net.sent).isEmpty();
        assertThat(events).isEmpty();
        assertThat(m.phase()).isEqualTo(MemberPhase.STOPPED);
    }

    private static BroadcastCopy copy(int source, DetectorEvent event, int[] dead) {
        return new BroadcastCopy(source, 0, source, 0, 1, 0, 0, dead, event);
    }

    /** Distinct ±2^j neighbours in a BMG of {@code live} ranks. */
    private static final class BinomialDegree {
        static int of(int live) {
            java.util.Set<Integer> s = new java.util.HashSet<>();
            for (int hop = 1; hop < live; hop <<= 1) {
                s.add(hop % live);
                s.add(Math.floorMod(-hop, live));
            }
            s.remove(0);
            return s.size();
        }
    }
}
