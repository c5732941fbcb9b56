package org.fabricmanager.detector.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.fabricmanager.detector.DetectorMetrics;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.message.DetectorEvent.MemberFailed;
import org.fabricmanager.detector.message.DetectorEvent.MemberRejoined;
import org.fabricmanager.detector.overlay.Overlay;
import org.junit.jupiter.api.Test;

/**
 * Local health and refutable suspicion over whole simulated rings (η 10 ms, δ 100 ms, τ 100 µs): random
 * schedules of lagging event loops, message loss and deaths, each seed printed in the assertion message.
 */
class LifeguardSimulationTest {
    private static final long MS = 1_000_000L;
    private static final long ETA = 10 * MS;
    private static final long DELTA = 100 * MS;
    private static final long TAU = 100_000L;

    private static final class Run {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final List<List<DetectorEvent>> events = new ArrayList<>();
        final List<long[]> verdicts = new ArrayList<>(); // {member declared dead, time}
        final Simulation sim;

        Run(SimulationConfig config) {
            for (int i = 0; i < config.members(); i++) {
                events.add(new ArrayList<>());
            }
            sim = new Simulation(config, registry, (m, e, t) -> {
                events.get(m).add(e);
                if (e instanceof MemberFailed f) {
                    verdicts.add(new long[] {f.member(), t});
                }
            });
            sim.startAll(ETA);
        }

        double count(String meter) {
            return registry.get(meter).counter().count();
        }
    }

    private static SimulationConfig config(int n, long seed, boolean lifeguard, double loss) {
        RingParameters p = RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), Overlay.BMG).withLifeguard(lifeguard);
        return SimulationConfig.of(n, p, TAU, seed).withLoss(loss);
    }

    /**
     * A block of consecutive members (the members sharing one overloaded event loop) handles every event up
     * to 0.2–0.9 δ late for 30 δ, on a network losing up to 1% of datagrams. With local health and refutable
     * suspicion no member is declared dead; the same schedules without them declare live members dead.
     */
    @Test
    void membersWhoseEventLoopsLagAccuseNobody() {
        int falseWithout = 0;
        for (long seed = 1; seed <= 24; seed++) {
            SplittableRandom draw = new SplittableRandom(seed);
            int n = 8 + draw.nextInt(41);
            double loss = draw.nextDouble() * 0.01;
            int first = draw.nextInt(n);
            int block = 1 + draw.nextInt(4);
            long maxLag = DELTA / 5 + draw.nextLong(DELTA * 7 / 10);
            String what = String.format("seed %d: n %d, loss %.3f, members %d..%d lag up to %d ms", seed, n, loss,
                    first, first + block - 1, maxLag / MS);
            int[] verdicts = new int[2];
            for (boolean lifeguard : new boolean[] {true, false}) {
                Run run = new Run(config(n, seed, lifeguard, loss));
                for (int k = 0; k < block; k++) {
                    run.sim.lag((first + k) % n, 3 * DELTA, 30 * DELTA, maxLag);
                }
                run.sim.runUntil(40 * DELTA);
                verdicts[lifeguard ? 0 : 1] = run.verdicts.size();
                if (lifeguard) {
                    assertThat(run.count(DetectorMetrics.SUSPICIONS)).as(what).isZero();
                    assertThat(run.events).as(what).allSatisfy(list ->
                            assertThat(list).noneMatch(e -> e instanceof MemberFailed));
                }
            }
            System.out.printf("%s: verdicts on live members with Lifeguard %d, without %d%n", what, verdicts[0], verdicts[1]);
            falseWithout += verdicts[1];
        }
        assertThat(falseWithout).as("the schedules are hostile: without Lifeguard live members are declared dead")
                .isPositive();
    }

    /**
     * A member that really dies is declared dead by its (healthy) observer within δ of its last heartbeat,
     * whatever happens to the suspicion messages (random loss up to 2%, timers up to η/4 late), every live
     * member learns it, and nobody else is declared dead.
     */
    @Test
    void aMemberThatReallyDiesIsStillDeclaredWithinTheBound() {
        for (long seed = 1; seed <= 30; seed++) {
            SplittableRandom draw = new SplittableRandom(seed);
            int n = 4 + draw.nextInt(61);
            double loss = draw.nextDouble() * 0.02;
            int victim = draw.nextInt(n);
            String what = String.format("seed %d: n %d, loss %.3f, member %d dies", seed, n, loss, victim);
            Run run = new Run(config(n, seed, true, loss).withTimerDelay(ETA / 4));
            long crash = 3 * DELTA + draw.nextLong(ETA);
            run.sim.crash(victim, crash);
            run.sim.runUntil(crash + 8 * DELTA);
            assertThat(run.verdicts).as(what).isNotEmpty();
            assertThat(run.verdicts).as(what).allMatch(v -> v[0] == victim);
            long detected = run.verdicts.get(0)[1] - crash;
            assertThat(detected).as("%s: detection %d µs", what, detected / 1000).isLessThanOrEqualTo(DELTA + ETA / 4 + 2 * TAU);
            for (int i = 0; i < n; i++) {
                if (i != victim) {
                    assertThat(run.sim.member(i).isDead(victim)).as("%s: member %d knows", what, i).isTrue();
                }
            }
        }
    }

    /**
     * A member paused for 0.7 δ is suspected (at δ/2), refutes as soon as it runs again by taking
     * incarnation 1, and is never declared dead; the ring still agrees (views differ only in a live
     * member's incarnation, which anti-entropy does not chase).
     */
    @Test
    void aSuspectThatRefutesBeforeTheVerdictStaysAlive() {
        for (long seed = 1; seed <= 10; seed++) {
            int n = 16;
            int paused = (int) (seed % n);
            Run run = new Run(config(n, seed, true, 0));
            run.sim.pause(paused, 3 * DELTA, 7 * DELTA / 10);
            run.sim.runUntil(3 * DELTA + 2 * n * DELTA);
            String what = "seed " + seed + ", member " + paused + " paused 70 ms";
            assertThat(run.verdicts).as(what).isEmpty();
            assertThat(run.sim.member(paused).incarnation()).as(what).isEqualTo(1);
            assertThat(run.count(DetectorMetrics.REFUTATIONS)).as(what).isEqualTo(1);
            assertThat(run.count(DetectorMetrics.REJOINS)).as(what).isZero();
            boolean[] none = new boolean[n];
            assertThat(FailureExperiment.agreed(run.sim, none, new int[0])).as("%s: all agree", what).isTrue();
            // the new incarnation is known to the members that heard from it (its observer), not broadcast
            assertThat(run.events.get(paused)).as(what).containsExactly(new MemberRejoined(paused, 1));
            assertThat(run.sim.member((paused + 1) % n).knownIncarnation(paused)).as(what).isEqualTo(1);
            for (int i = 0; i < n; i++) {
                assertThat(run.events.get(i)).as("%s: member %d", what, i).noneMatch(e -> e instanceof MemberFailed);
            }
        }
    }

    /**
     * A member paused for 1.5–6 δ is declared dead at δ; when it runs again it refutes the suspicion that
     * waited for it, so the late verdict about incarnation 0 does not make it rejoin: its observer hears
     * incarnation 1 and tells the ring, which ends with the member alive at incarnation 1 everywhere.
     */
    @Test
    void aMemberPausedLongerThanDeltaIsDeclaredDeadAndComesBackAtTheIncarnationItRefutedWith() {
        long[] pauses = {3 * DELTA / 2, 3 * DELTA, 6 * DELTA};
        for (long seed = 1; seed <= 3; seed++) {
            int n = 64;
            int paused = 20;
            long pause = pauses[(int) (seed - 1)];
            Run run = new Run(config(n, seed, true, 0));
            run.sim.pause(paused, 3 * DELTA, pause);
            run.sim.runUntil(3 * DELTA + pause + 12 * DELTA);
            String what = "seed " + seed + ", pause " + pause / MS + " ms";
            assertThat(run.sim.member(paused).incarnation()).as(what).isEqualTo(1);
            for (int i = 0; i < n; i++) {
                assertThat(run.sim.member(i).knownIncarnation(paused)).as("%s: member %d", what, i).isEqualTo(1);
                assertThat(run.sim.member(i).isDead(paused)).as("%s: member %d", what, i).isFalse();
                List<DetectorEvent> expected = i == paused ? List.of(new MemberRejoined(paused, 1))
                        : List.of(new MemberFailed(paused, 0), new MemberRejoined(paused, 1));
                assertThat(run.events.get(i)).as("%s: member %d", what, i).containsExactlyElementsOf(expected);
            }
            assertThat(run.count(DetectorMetrics.REJOINS)).as(what).isZero();
        }
    }
}
