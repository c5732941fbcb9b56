package org.fabricmanager.detector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The lateness members of one process share: raised by late timers, bounded, forgiven one point per calm period. */
class ProcessHealthTest {
    private static final long SLIP = 50;
    private static final long CALM = 1_000;

    @Test
    void lateTimersRaiseTheScoreUpToTheMaximumAndOnTimeOnesDoNot() {
        ProcessHealth h = new ProcessHealth();
        h.timerFired(SLIP, SLIP, CALM, 10);
        assertThat(h.score(10)).as("exactly the threshold is on time").isZero();
        for (int i = 1; i <= 10; i++) {
            h.timerFired(SLIP + 1, SLIP, CALM, 10 + i);
            assertThat(h.score(10 + i)).isEqualTo(Math.min(i, SuspicionPolicy.MAX_HEALTH_SCORE));
        }
    }

    @Test
    void eachCalmPeriodSinceTheLastLateTimerForgivesOnePoint() {
        ProcessHealth h = new ProcessHealth();
        for (int i = 0; i < 3; i++) {
            h.timerFired(SLIP * 4, SLIP, CALM, 100);
        }
        assertThat(h.score(100 + CALM - 1)).isEqualTo(3);
        assertThat(h.score(100 + CALM)).isEqualTo(2);
        h.timerFired(0, SLIP, CALM, 100 + CALM + 10); // on time: no new evidence, no reset of the calm
        assertThat(h.score(100 + 2 * CALM)).isEqualTo(1);
        assertThat(h.score(100 + 10 * CALM)).isZero();
    }

    /**
     * Property, over random timelines: the score stays within 0..max, rises only on a late timer and then by exactly
     * one (unless at the maximum), and after k calm periods without a late timer it is at most the score then less k.
     */
    @Test
    void staysBoundedRisesOnlyOnLateTimersAndDecaysOnePointPerCalmPeriod() {
        SplittableRandom random = new SplittableRandom(17);
        for (int run = 0; run < 200; run++) {
            ProcessHealth h = new ProcessHealth();
            long now = 0;
            long lastLate = -1;
            int scoreAtLastLate = 0;
            for (int step = 0; step < 100; step++) {
                int before = h.score(now);
                now += random.nextLong(1, 2 * CALM);
                boolean late = random.nextInt(3) == 0;
                int decayed = h.score(now);
                assertThat(decayed).as("run %d step %d: no rise without evidence", run, step).isLessThanOrEqualTo(before);
                h.timerFired(late ? SLIP + 1 + random.nextLong(1_000) : random.nextLong(SLIP + 1), SLIP, CALM, now);
                int after = h.score(now);
                assertThat(after).isBetween(0, SuspicionPolicy.MAX_HEALTH_SCORE);
                if (late) {
                    assertThat(after).isEqualTo(Math.min(SuspicionPolicy.MAX_HEALTH_SCORE, decayed + 1));
                    lastLate = now;
                    scoreAtLastLate = after;
                } else {
                    assertThat(after).isEqualTo(decayed);
                    if (lastLate >= 0) {
                        long calmPeriods = (now - lastLate) / CALM;
                        assertThat(after).isLessThanOrEqualTo((int) Math.max(0, scoreAtLastLate - calmPeriods));
                    }
                }
            }
        }
    }
}
