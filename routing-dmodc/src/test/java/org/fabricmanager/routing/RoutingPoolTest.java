package org.fabricmanager.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class RoutingPoolTest {

    @Test
    void visitsEveryIndexExactlyOnceWithValidWorkerNumbers() {
        for (int threads = 1; threads <= 4; threads++) {
            try (RoutingPool pool = new RoutingPool(threads, "test")) {
                for (int count : new int[] {0, 1, 7, 1000}) {
                    AtomicIntegerArray seen = new AtomicIntegerArray(Math.max(count, 1));
                    int max = threads;
                    pool.forRange(count, 3, (worker, from, to) -> {
                        assertThat(worker).isBetween(0, max - 1);
                        for (int i = from; i < to; i++) {
                            seen.incrementAndGet(i);
                        }
                    });
                    for (int i = 0; i < count; i++) {
                        assertThat(seen.get(i)).as("threads " + threads + " index " + i).isEqualTo(1);
                    }
                }
            }
        }
    }

    @Test
    void anAbandonedLoopStartsNoFurtherItemAndSaysSo() {
        for (int threads = 1; threads <= 4; threads++) {
            try (RoutingPool pool = new RoutingPool(threads, "test")) {
                java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
                assertThatThrownBy(() -> pool.forEach(10_000, () -> i -> done.incrementAndGet(), () -> done.get() >= 100))
                        .isInstanceOf(AbandonedException.class);
                // each worker finishes the item it holds when the flag turns: at most one more per worker
                assertThat(done.get()).as("threads " + threads).isBetween(100, 100 + threads);
                // never abandoned: every item, as without the check
                done.set(0);
                pool.forEach(1_000, () -> i -> done.incrementAndGet(), () -> false);
                assertThat(done.get()).isEqualTo(1_000);
            }
        }
    }

    @Test
    void rethrowsAWorkersFailure() {
        try (RoutingPool pool = new RoutingPool(3, "test")) {
            assertThatThrownBy(() -> pool.forRange(100, 1, (worker, from, to) -> {
                if (from == 57) {
                    throw new IllegalStateException("boom at 57");
                }
            })).isInstanceOf(IllegalStateException.class).hasMessage("boom at 57");
            // still usable afterwards
            pool.forRange(10, 1, (worker, from, to) -> { });
        }
    }

    @Test
    void refusesZeroThreads() {
        assertThatThrownBy(() -> new RoutingPool(0, "test")).isInstanceOf(RoutingException.class)
                .hasMessageContaining("at least 1");
    }
}
