package org.fabricmanager.detector.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabricmanager.detector.DetectorMetrics;
import org.fabricmanager.detector.MemberPhase;
import org.fabricmanager.detector.RingMember;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.message.BroadcastCopy;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.message.DetectorEvent.LinkDown;
import org.fabricmanager.detector.message.DetectorEvent.LinkUp;
import org.fabricmanager.detector.message.DetectorEvent.MemberFailed;
import org.fabricmanager.detector.message.DetectorEvent.MemberRejoined;
import org.fabricmanager.detector.overlay.Overlay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Scenarios beyond the paper: failure-free cost, local pauses, late joiners and link events. */
class SimulationTest {
    private static final long MS = 1_000_000L;
    private static final long ETA = 10 * MS;
    private static final long DELTA = 100 * MS;
    private static final long TAU = 100_000L;

    /** A simulation whose probe keeps every member's events. */
    private static final class Run {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final List<List<DetectorEvent>> events = new ArrayList<>();
        final Simulation sim;

        Run(int n, Overlay overlay, long seed) {
            this(n, overlay, seed, false);
        }

        /** {@code lifeguard} false: the SC'16 behaviour these scenarios were written for (LifeguardSimulationTest has the rest). */
        Run(int n, Overlay overlay, long seed, boolean lifeguard) {
            for (int i = 0; i < n; i++) {
                events.add(new ArrayList<>());
            }
            RingParameters p = RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), overlay).withLifeguard(lifeguard);
            sim = new Simulation(SimulationConfig.of(n, p, TAU, seed), registry, (m, e, t) -> events.get(m).add(e));
            sim.startAll(ETA);
        }

        double count(String meter) {
            return registry.get(meter).counter().count();
        }

        /** Every live member running with D = {@code dead}, the right neighbours and the same digest. */
        void assertAgreed(int... dead) {
            boolean[] isDead = new boolean[sim.size()];
            for (int d : dead) {
                isDead[d] = true;
            }
            assertThat(FailureExperiment.agreed(sim, isDead, dead)).as("live members agree on D=%s", Arrays.toString(dead)).isTrue();
        }
    }

    @Test
    void failureFreeOverheadIsExactlyOneHeartbeatPerMemberPerEtaAndNoBroadcast() {
        int n = 1024;
        Run run = new Run(n, Overlay.HYPERCUBE, 1);
        run.sim.runUntil(3 * DELTA);
        MessageCounts before = run.sim.messageCounts();
        run.sim.runUntil(3 * DELTA + 50 * ETA);
        MessageCounts window = run.sim.messageCounts().minus(before);
        assertThat(window.heartbeats()).isEqualTo(50L * n);
        assertThat(window.nonHeartbeat()).isZero();
        assertThat(run.count(DetectorMetrics.BROADCASTS_ORIGINATED)).isZero();
        assertThat(run.count(DetectorMetrics.SUSPICIONS)).isZero();
        assertThat(run.events).allMatch(List::isEmpty);
    }

    @ParameterizedTest
    @EnumSource(Overlay.class)
    void aMemberPausedLongerThanDeltaIsSuspectedLearnsItAndRejoinsWithANewIncarnation(Overlay overlay) {
        int n = 64;
        int paused = 20;
        long[] pauses = {3 * DELTA / 2, 3 * DELTA, 6 * DELTA};
        for (long seed = 1; seed <= 3; seed++) {
            long pause = pauses[(int) (seed - 1)];
            Run run = new Run(n, overlay, seed);
            run.sim.pause(paused, 3 * DELTA, pause);
            run.sim.runUntil(3 * DELTA + pause + 12 * DELTA);
            String what = "seed " + seed + ", pause " + pause / MS + " ms";
            assertThat(run.sim.member(paused).incarnation()).as(what).isEqualTo(1);
            for (int i = 0; i < n; i++) {
                RingMember m = run.sim.member(i);
                assertThat(m.knownIncarnation(paused)).as("%s: member %d", what, i).isEqualTo(1);
                // Exactly these two events everywhere: in particular the paused member, its timers
                // firing late, never suspected its own emitter.
                assertThat(run.events.get(i)).as("%s: member %d", what, i)
                        .containsExactly(new MemberFailed(paused, 0), new MemberRejoined(paused, 1));
            }
            run.assertAgreed();
            assertThat(run.count(DetectorMetrics.FALSE_SUSPICIONS)).as(what).isGreaterThanOrEqualTo(1);
            assertThat(run.count(DetectorMetrics.REJOINS)).as(what).isEqualTo(1);
        }
    }

    @Test
    void aShortPauseBelowDeltaGoesUnnoticed() {
        Run run = new Run(64, Overlay.BMG, 5);
        run.sim.pause(20, 3 * DELTA, DELTA / 2);
        run.sim.runUntil(15 * DELTA);
        assertThat(run.events).allMatch(List::isEmpty);
        assertThat(run.count(DetectorMetrics.SUSPICIONS)).isZero();
        run.assertAgreed();
    }

    @ParameterizedTest
    @EnumSource(Overlay.class)
    void aRestartedMemberJoinsLateReceivesTheDeadSetAndRejoinsAtTheNextIncarnation(Overlay overlay) {
        int n = 64;
        Run run = new Run(n, overlay, 3);
        run.sim.crash(10, 3 * DELTA);
        run.sim.crash(30, 3 * DELTA);
        run.sim.restart(10, 8 * DELTA);
        run.sim.runUntil(20 * DELTA);
        RingMember joiner = run.sim.member(10);
        assertThat(joiner.phase()).isEqualTo(MemberPhase.RUNNING);
        assertThat(joiner.incarnation()).isEqualTo(1);
        assertThat(run.events.get(10)).as("the joiner's listener")
                .containsExactlyInAnyOrder(new MemberFailed(30, 0), new MemberFailed(10, 0), new MemberRejoined(10, 1));
        for (int i = 0; i < n; i++) {
            if (i == 10 || i == 30) {
                continue;
            }
            assertThat(run.events.get(i)).as("member %d", i).containsExactlyInAnyOrder(
                    new MemberFailed(10, 0), new MemberFailed(30, 0), new MemberRejoined(10, 1));
            assertThat(run.events.get(i).indexOf(new MemberFailed(10, 0)))
                    .isLessThan(run.events.get(i).indexOf(new MemberRejoined(10, 1)));
            assertThat(run.sim.member(i).knownIncarnation(10)).isEqualTo(1);
        }
        run.assertAgreed(30);
    }

    @ParameterizedTest
    @EnumSource(Overlay.class)
    void aMemberThatMissesEveryBroadcastCopyIsRepairedFromItsEmittersView(Overlay overlay) {
        Run run = new Run(128, overlay, 9);
        run.sim.dropIf((from, to, message, nanos) -> to == 50 && message instanceof BroadcastCopy);
        run.sim.crash(20, 3 * DELTA);
        run.sim.runUntil(4 * DELTA + 5 * MS);
        assertThat(run.sim.member(51).isDead(20)).isTrue();
        assertThat(run.sim.member(50).isDead(20)).as("no copy reached member 50").isFalse();
        run.sim.runUntil(8 * DELTA);
        assertThat(run.events.get(50)).containsExactly(new MemberFailed(20, 0));
        run.assertAgreed(20);
    }

    @ParameterizedTest
    @EnumSource(Overlay.class)
    void linkFaultsReachEveryLiveListenerExactlyOnceAndInOrder(Overlay overlay) {
        int n = 256;
        Run run = new Run(n, overlay, 11);
        int[] known = {40, 41, 200};
        for (int d : known) {
            run.sim.crash(d, 3 * DELTA);
        }
        // Crashed one heartbeat before the report: not yet in anyone's dead set when the broadcast starts.
        run.sim.crash(77, 10 * DELTA - ETA);
        run.sim.at(10 * DELTA, () -> run.sim.member(5).reportLinkDown(7));
        run.sim.at(12 * DELTA, () -> run.sim.member(5).reportLinkUp(7));
        run.sim.runUntil(20 * DELTA);
        for (int i = 0; i < n; i++) {
            if (i == 40 || i == 41 || i == 200 || i == 77) {
                continue;
            }
            List<DetectorEvent> links = run.events.get(i).stream()
                    .filter(e -> e instanceof LinkDown || e instanceof LinkUp).toList();
            assertThat(links).as("member %d", i).containsExactly(new LinkDown(5, 0, 7, 1), new LinkUp(5, 0, 7, 2));
        }
        run.assertAgreed(40, 41, 77, 200);
    }
}
