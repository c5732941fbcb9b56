package org.fabricmanager.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
    void loopsInsideAbandoningStopAtTheFirstChunkAfterTheFlagAndOnlyThere() {
        for (int threads = 1; threads <= 3; threads++) {
            try (RoutingPool pool = new RoutingPool(threads, "test")) {
                java.util.concurrent.atomic.AtomicInteger chunks = new java.util.concurrent.atomic.AtomicInteger();
                int max = threads;
                assertThatThrownBy(() -> pool.abandoning(() -> chunks.get() >= 50, () -> {
                    pool.forRange(1_000, 2, (worker, from, to) -> chunks.incrementAndGet());
                    return null;
                })).isInstanceOf(AbandonedException.class);
                // a worker finishes the chunk it holds when the flag turns, even the caller running them all inline
                assertThat(chunks.get()).as("threads " + threads).isBetween(50, 50 + max);
                // outside abandoning, and inside it while the flag is false: every index, as before
                AtomicIntegerArray seen = new AtomicIntegerArray(1_000);
                pool.forRange(1_000, 2, (worker, from, to) -> visit(seen, from, to));
                pool.abandoning(() -> false, () -> {
                    pool.forRange(1_000, 2, (worker, from, to) -> visit(seen, from, to));
                    return null;
                });
                for (int i = 0; i < 1_000; i++) {
                    assertThat(seen.get(i)).as("threads " + max + " index " + i).isEqualTo(2);
                }
            }
        }
    }

    private static void visit(AtomicIntegerArray seen, int from, int to) {
        for (int i = from; i < to; i++) {
            seen.incrementAndGet(i);
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

    /**
     * A loop whose pool thread is held elsewhere (here by another loop's chunk, on a busy host by the scheduler) is
     * finished by the caller alone and returns without waiting for that thread to start: it waits for chunks, not
     * threads. Waiting for the thread, this call would only return once the latch is released below.
     */
    @Test
    void aLoopDoesNotWaitForAPoolThreadThatHasNotStarted() throws Exception {
        try (RoutingPool pool = new RoutingPool(2, "test")) {
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ExecutorService callers = Executors.newFixedThreadPool(2);
            try {
                // another loop: worker 1 runs on the pool's only thread and stays in its chunk; worker 0 cannot take
                // the second chunk before worker 1 holds one
                Future<?> first = callers.submit(() -> pool.forRange(2, 1, (worker, from, to) -> {
                    if (worker == 1) {
                        holding.countDown();
                        awaitQuietly(release);
                    } else {
                        awaitQuietly(holding);
                    }
                }));
                assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
                AtomicIntegerArray workerOf = new AtomicIntegerArray(50);
                Future<?> second = callers.submit(() -> pool.forRange(50, 1, (worker, from, to) -> {
                    for (int i = from; i < to; i++) {
                        workerOf.set(i, worker + 1);
                    }
                }));
                second.get(10, TimeUnit.SECONDS); // returns with the pool thread still held
                for (int i = 0; i < 50; i++) {
                    assertThat(workerOf.get(i)).as("index %d done by the caller", i).isEqualTo(1);
                }
                release.countDown();
                first.get(10, TimeUnit.SECONDS);
            } finally {
                release.countDown();
                callers.shutdownNow();
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
