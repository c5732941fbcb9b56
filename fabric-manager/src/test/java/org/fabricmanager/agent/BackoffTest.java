package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {
    @Test
    void delaysGrowExponentiallyWithinJitterAndAreCapped() {
        Backoff b = new Backoff(100, 5_000, new Random(3));
        long[] ceilings = {100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000};
        for (long ceiling : ceilings) {
            long d = b.nextDelayMs();
            assertThat(d).isBetween(ceiling / 2, ceiling);
        }
        b.reset();
        assertThat(b.nextDelayMs()).isBetween(50L, 100L);
    }

    @Test
    void jitterSpreadsAgentsThatFailTogether() {
        Random seeds = new Random(11);
        java.util.Set<Long> firstDelays = new java.util.HashSet<>();
        for (int agent = 0; agent < 200; agent++) {
            Backoff b = new Backoff(1_000, 5_000, new Random(seeds.nextLong()));
            firstDelays.add(b.nextDelayMs());
        }
        assertThat(firstDelays.size()).isGreaterThan(150);
    }
}
