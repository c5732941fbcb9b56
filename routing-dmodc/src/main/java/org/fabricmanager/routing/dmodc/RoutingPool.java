package org.fabricmanager.routing.dmodc;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabricmanager.routing.RoutingException;

/**
 * The worker threads of one routing engine. Work is expressed as parallel loops over an index
 * range (switches of one rank, all switches, ...): workers claim chunks of the range dynamically
 * and {@link #forRange} returns only when the whole range is done, so that each call is a barrier.
 * The calling thread takes part as worker 0, hence a pool of {@code threads} keeps
 * {@code threads - 1} threads of its own (none for a single thread, where loops run inline).
 *
 * <p>Results never depend on the number of threads as long as each index writes only its own
 * data, which is how every engine loop is written.
 */
public final class RoutingPool implements AutoCloseable {

    /** The body of a parallel loop: handles indices {@code from .. to-1} as worker {@code worker}. */
    @FunctionalInterface
    public interface RangeTask {
        void run(int worker, int from, int to);
    }

    private final int threads;
    private final ExecutorService executor;

    /**
     * A pool of {@code threads} workers (the caller included).
     *
     * @param name prefix of the threads' names, e.g. {@code dmodc}
     * @throws RoutingException when {@code threads < 1}
     */
    public RoutingPool(int threads, String name) {
        if (threads < 1) {
            throw new RoutingException("routing threads must be at least 1, got " + threads);
        }
        this.threads = threads;
        if (threads == 1) {
            this.executor = null;
        } else {
            AtomicInteger counter = new AtomicInteger();
            ThreadFactory factory = r -> {
                Thread t = new Thread(r, "fabric-routing-" + name + "-" + counter.incrementAndGet());
                t.setDaemon(true);
                return t;
            };
            this.executor = Executors.newFixedThreadPool(threads - 1, factory);
        }
    }

    /** Number of workers, the calling thread included. */
    public int threads() {
        return threads;
    }

    /**
     * Runs {@code task} over {@code [0, count)} in chunks of at most {@code grain} indices and
     * waits for all of them. An exception thrown by any chunk is rethrown here (the other workers
     * finish their chunks first).
     */
    public void forRange(int count, int grain, RangeTask task) {
        if (count <= 0) {
            return;
        }
        int chunk = Math.max(1, grain);
        int workers = Math.min(threads, (count + chunk - 1) / chunk);
        if (workers <= 1 || executor == null) {
            task.run(0, 0, count);
            return;
        }
        AtomicInteger next = new AtomicInteger();
        Future<?>[] futures = new Future<?>[workers - 1];
        for (int w = 1; w < workers; w++) {
            int worker = w;
            futures[w - 1] = executor.submit(() -> claim(worker, count, chunk, next, task));
        }
        Throwable failure = null;
        try {
            claim(0, count, chunk, next, task);
        } catch (RuntimeException | Error e) {
            failure = e;
            next.set(count);
        }
        for (Future<?> f : futures) {
            try {
                f.get();
            } catch (ExecutionException e) {
                if (failure == null) {
                    failure = e.getCause();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (failure == null) {
                    failure = new RoutingException("interrupted while routing", e);
                }
            }
        }
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        if (failure != null) {
            throw new RoutingException("routing worker failed: " + failure, failure);
        }
    }

    private static void claim(int worker, int count, int chunk, AtomicInteger next, RangeTask task) {
        while (true) {
            int from = next.getAndAdd(chunk);
            if (from >= count) {
                return;
            }
            task.run(worker, from, Math.min(count, from + chunk));
        }
    }

    /** Stops the pool's threads; loops must not be run afterwards. */
    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
