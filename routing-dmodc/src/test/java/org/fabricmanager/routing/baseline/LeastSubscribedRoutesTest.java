package org.fabricmanager.routing.baseline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LeastSubscribedRoutesTest {

    @Test
    void choosesExactlyAsAScanForTheLeastSubscribedPortWould() {
        Random random = new Random(42);
        for (int trial = 0; trial < 2000; trial++) {
            int count = 1 + random.nextInt(12);
            int[] ports = new int[count];
            int[] pool = new int[40];
            for (int p = 0; p < pool.length; p++) {
                pool[p] = p + 1;
            }
            for (int c = 0; c < count; c++) {
                int j = c + random.nextInt(pool.length - c);
                int tmp = pool[c];
                pool[c] = pool[j];
                pool[j] = tmp;
                ports[c] = pool[c];
            }
            int[] subscription = new int[256];
            for (int p = 1; p <= 40; p++) {
                subscription[p] = random.nextInt(5);
            }
            int n = random.nextInt(30);
            int[] expectedSubscription = subscription.clone();
            int[] expected = new int[n];
            for (int i = 0; i < n; i++) {
                int best = ports[0];
                for (int c = 1; c < count; c++) {
                    int p = ports[c];
                    if (expectedSubscription[p] < expectedSubscription[best]
                            || (expectedSubscription[p] == expectedSubscription[best] && p < best)) {
                        best = p;
                    }
                }
                expected[i] = best;
                expectedSubscription[best]++;
            }
            int[] chosen = new int[Math.max(n, 1)];
            LeastSubscribedRoutes.assign(subscription, ports, count, n, chosen, new int[512]);
            assertThat(Arrays.copyOf(chosen, n)).as("trial %d: ports %s", trial, Arrays.toString(ports))
                    .isEqualTo(expected);
            assertThat(subscription).isEqualTo(expectedSubscription);
        }
    }

    @Test
    void spreadsEqualPortsRoundRobinInPortOrder() {
        int[] subscription = new int[256];
        int[] chosen = new int[7];
        LeastSubscribedRoutes.assign(subscription, new int[] {9, 7, 8}, 3, 7, chosen, new int[512]);
        assertThat(chosen).containsExactly(7, 8, 9, 7, 8, 9, 7);
        assertThat(subscription[7]).isEqualTo(3);
        assertThat(subscription[9]).isEqualTo(2);
    }
}
