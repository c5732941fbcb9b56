package org.fabricmanager.detector.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.SplittableRandom;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.overlay.Overlay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The bounds, measured in the simulator with on-time heartbeats and reliable links. */
class FailureExperimentTest {
    private static final long MS = 1_000_000L;
    private static final long TAU = 100_000L; // 100 µs
    private static final Duration ETA = Duration.ofMillis(10);
    private static final Duration DELTA = Duration.ofMillis(100);

    private static ExperimentResult run(int n, int f, boolean consecutive, Overlay overlay, long seed) {
        RingParameters p = RingParameters.of(ETA, DELTA, overlay);
        return FailureExperiment.run(new ExperimentSpec(SimulationConfig.of(n, p, TAU, seed), f, consecutive));
    }

    @ParameterizedTest
    @EnumSource(Overlay.class)
    void oneFailureIsKnownByEveryLiveMemberWithinDeltaPlusTauPlusTheBroadcastTime(Overlay overlay) {
        int n = 1024;
        double limitMs = (DELTA.toNanos() + TAU + 2.0 * TAU * 10) / 1e6; // δ + τ + 2τ⌈log2 n⌉
        for (long seed = 1; seed <= 3; seed++) {
            ExperimentResult r = run(n, 1, false, overlay, seed);
            assertThat(r.agreed()).as("seed %d", seed).isTrue();
            assertThat(r.knowledgeMs()).as("seed %d", seed).isLessThanOrEqualTo(limitMs);
            assertThat(r.detectionMs()).as("seed %d", seed).isGreaterThan(DELTA.toMillis() - ETA.toMillis() - 1);
            assertThat(r.falseSuspicions()).as("seed %d", seed).isZero();
            assertThat(r.wrongFailures()).as("seed %d", seed).isZero();
            assertThat(r.duplicateEvents()).as("seed %d", seed).isZero();
            assertThat(r.broadcasts()).as("seed %d", seed).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Overlay.class)
    void worstCaseConsecutiveFailuresReconnectTheRingAndAgreeWithinTheBound(Overlay overlay) {
        int n = 1024;
        int f = 9; // floor(log2 n) - 1
        for (long seed = 1; seed <= 2; seed++) {
            ExperimentResult r = run(n, f, true, overlay, seed);
            assertThat(r.agreed()).as("seed %d", seed).isTrue();
            assertThat(r.stabilisationMs()).as("seed %d", seed).isLessThanOrEqualTo(r.boundMs());
            // The observer walks back one dead member per 2δ: (2f - 1)δ plus a few τ.
            assertThat(r.stabilisationMs()).as("seed %d", seed).isGreaterThanOrEqualTo((2 * f - 2) * 100.0);
            assertThat(r.falseSuspicions()).as("seed %d", seed).isZero();
            assertThat(r.wrongFailures()).as("seed %d", seed).isZero();
            assertThat(r.broadcasts()).as("seed %d: one broadcast per failure", seed).isEqualTo(f);
        }
    }

    @ParameterizedTest
    @EnumSource(Overlay.class)
    void randomSimultaneousFailuresAgreeWithinTheBound(Overlay overlay) {
        int n = 1024;
        int f = 9;
        for (long seed = 1; seed <= 2; seed++) {
            ExperimentResult r = run(n, f, false, overlay, seed);
            assertThat(r.agreed()).as("seed %d", seed).isTrue();
            assertThat(r.stabilisationMs()).as("seed %d", seed).isLessThanOrEqualTo(r.boundMs());
            assertThat(r.falseSuspicions()).as("seed %d", seed).isZero();
            assertThat(r.wrongFailures()).as("seed %d", seed).isZero();
            assertThat(r.duplicateEvents()).as("seed %d", seed).isZero();
        }
    }

    @Test
    void anyRingSizeAndFailurePatternWithinTheToleranceAgreesWithinTheBound() {
        int[] sizes = {2, 3, 5, 8, 17, 33, 64, 100, 200};
        for (long seed = 1; seed <= 90; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int n = sizes[random.nextInt(sizes.length)];
            int tolerance = Math.max(1, 31 - Integer.numberOfLeadingZeros(n) - 1);
            int f = 1 + random.nextInt(Math.min(tolerance, n - 1));
            boolean consecutive = random.nextBoolean();
            Overlay overlay = random.nextBoolean() ? Overlay.HYPERCUBE : Overlay.BMG;
            ExperimentResult r = run(n, f, consecutive, overlay, seed);
            String what = String.format("seed %d: n=%d f=%d %s %s", seed, n, f, consecutive ? "consecutive" : "random", overlay);
            assertThat(r.agreed()).as(what).isTrue();
            assertThat(r.stabilisationMs()).as(what).isLessThanOrEqualTo(r.boundMs());
            assertThat(r.falseSuspicions()).as(what).isZero();
            assertThat(r.wrongFailures()).as(what).isZero();
            assertThat(r.duplicateEvents()).as(what).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Overlay.class)
    void convergesDespiteLostMessagesAndLateTimers(Overlay overlay) {
        for (long seed = 1; seed <= 3; seed++) {
            RingParameters p = RingParameters.of(ETA, DELTA, overlay);
            SimulationConfig ring = SimulationConfig.of(256, p, TAU, seed).withLoss(0.02).withTimerDelay(ETA.toNanos() / 2);
            ExperimentResult r = FailureExperiment.run(new ExperimentSpec(ring, 4, seed % 2 == 0));
            assertThat(r.agreed()).as("seed %d", seed).isTrue();
            assertThat(r.wrongFailures()).as("seed %d", seed).isZero();
            assertThat(r.duplicateEvents()).as("seed %d", seed).isZero();
        }
    }

    @Test
    void aSeedDeterminesTheWholeRun() {
        ExperimentResult a = run(300, 5, false, Overlay.BMG, 42);
        ExperimentResult b = run(300, 5, false, Overlay.BMG, 42);
        ExperimentResult c = run(300, 5, false, Overlay.BMG, 43);
        assertThat(b.failedMembers()).containsExactly(a.failedMembers());
        assertThat(b.stabilisationMs()).isEqualTo(a.stabilisationMs());
        assertThat(b.detectionMs()).isEqualTo(a.detectionMs());
        assertThat(b.counts()).isEqualTo(a.counts());
        assertThat(c.failedMembers()).isNotEqualTo(a.failedMembers());
    }

    @Test
    void recordsMessagesPerBroadcastForBothOverlaysAtN1024() {
        ExperimentResult hypercube = run(1024, 1, false, Overlay.HYPERCUBE, 7);
        ExperimentResult bmg = run(1024, 1, false, Overlay.BMG, 7);
        // 1,023 live members: two 512-cubes of 9 trees each; the BMG floods 1,023 ranks of degree 20.
        assertThat(hypercube.messagesPerBroadcast()).isEqualTo(2 * 9 * 511);
        assertThat(bmg.messagesPerBroadcast()).isEqualTo(20 + 1022 * 19);
        System.out.printf("messages per broadcast at n=1024 after one failure: hypercube %.0f, bmg %.0f%n",
                hypercube.messagesPerBroadcast(), bmg.messagesPerBroadcast());
    }

    @Test
    void theBoundIsThePapersFormula() {
        // f = 9, n = 1024, δ = 100 ms, τ = 100 µs: 90δ + 9τ + 45·8τ·10.
        assertThat(FailureExperiment.boundNanos(9, 1024, 100 * MS, TAU) / 1e6).isCloseTo(9000 + 0.9 + 360, org.assertj.core.data.Offset.offset(1e-6));
    }
}
