package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {
    /**
     * Property, over generated (initial, cap) pairs and attempt counts up to past the shift's range: every delay
     * lies in [0, min(cap, initial * 2^attempt)], never above the cap, never negative (no overflow), and resets.
     */
    @Test
    void everyDelayLiesInTheFullJitterWindowAndUnderTheCap() {
        long seed = new Random().nextLong();
        Random gen = new Random(seed);
        for (int trial = 0; trial < 500; trial++) {
            long initial = 1 + (long) (gen.nextDouble() * (gen.nextBoolean() ? 1_000 : Long.MAX_VALUE / 4));
            long cap = initial + (long) (gen.nextDouble() * (gen.nextBoolean() ? 60_000 : Long.MAX_VALUE / 2));
            Backoff b = new Backoff(initial, cap, new Random(gen.nextLong()));
            String where = "seed " + seed + ", trial " + trial + ", initial " + initial + ", cap " + cap;
            for (int attempt = 0; attempt < 80; attempt++) {
                long ceiling = BigInteger.valueOf(initial).shiftLeft(attempt).min(BigInteger.valueOf(cap)).longValueExact();
                long d = b.nextDelayMs();
                assertThat(d).as(where + ", attempt " + attempt).isBetween(0L, ceiling);
            }
            assertThat(b.attempts()).isEqualTo(80);
            b.reset();
            assertThat(b.attempts()).isZero();
            assertThat(b.nextDelayMs()).as(where + " after reset").isBetween(0L, initial);
        }
    }

    @Test
    void delaysReachTheCapAndNeverExceedIt() {
        Backoff b = new Backoff(100, 5_000, new Random(3));
        long max = 0;
        for (int i = 0; i < 2_000; i++) {
            long d = b.nextDelayMs();
            assertThat(d).isBetween(0L, 5_000L);
            max = Math.max(max, d);
        }
        assertThat(max).as("the window grows to the cap").isGreaterThan(4_500L);
    }

    /**
     * Property: after the peer said it is stopping, the next probes stay within the return cap however far the
     * ceiling has grown, spread over the whole of it; then, or after a reset, delays are as without the notice.
     */
    @Test
    void afterAStopNoticeTheNextProbesStayWithinTheReturnCap() {
        long seed = new Random().nextLong();
        Random gen = new Random(seed);
        for (int trial = 0; trial < 200; trial++) {
            String where = "seed " + seed + ", trial " + trial;
            Backoff b = new Backoff(100, 5_000, new Random(gen.nextLong()));
            int before = gen.nextInt(12);
            for (int i = 0; i < before; i++) {
                b.nextDelayMs();
            }
            int probes = 1 + gen.nextInt(60);
            b.expectReturn(1_000, probes);
            long max = 0;
            for (int i = 0; i < probes; i++) {
                long d = b.nextDelayMs();
                assertThat(d).as(where + ", probe " + i).isBetween(0L, 1_000L);
                max = Math.max(max, d);
            }
            assertThat(b.attempts()).as(where + ": the ceiling kept growing underneath").isEqualTo(before + probes);
            long after = 0;
            for (int i = 0; i < 200; i++) {
                after = Math.max(after, b.nextDelayMs());
            }
            assertThat(after).as(where + ": back to the usual window").isBetween(1_001L, 5_000L);
            b.expectReturn(1_000, 60);
            b.reset();
            assertThat(b.nextDelayMs()).as(where + ": a reset ends the notice").isBetween(0L, 100L);
        }
        Backoff b = new Backoff(100, 5_000, new Random(5));
        for (int i = 0; i < 10; i++) {
            b.nextDelayMs();
        }
        b.expectReturn(1_000, 1_000);
        int belowHalf = 0;
        for (int i = 0; i < 1_000; i++) {
            if (b.nextDelayMs() < 500) {
                belowHalf++;
            }
        }
        assertThat(belowHalf).as("uniform on [0, 1000]").isBetween(400, 600);
    }

    /** Full jitter: agents that failed together spread over the whole window, below half of it too. */
    @Test
    void jitterSpreadsAgentsThatFailTogetherOverTheWholeWindow() {
        Random seeds = new Random(11);
        java.util.Set<Long> firstDelays = new java.util.HashSet<>();
        int belowHalf = 0;
        int aboveHalf = 0;
        for (int agent = 0; agent < 1_000; agent++) {
            Backoff b = new Backoff(5_000, 5_000, new Random(seeds.nextLong()));
            long d = b.nextDelayMs();
            firstDelays.add(d);
            if (d < 2_500) {
                belowHalf++;
            } else {
                aboveHalf++;
            }
        }
        assertThat(firstDelays.size()).isGreaterThan(800);
        // uniform on [0, 5000]: about 500 each side; equal jitter would put none below half
        assertThat(belowHalf).isBetween(400, 600);
        assertThat(aboveHalf).isBetween(400, 600);
    }
}
