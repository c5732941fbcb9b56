package org.fabricmanager.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * The worker threads every routing engine and analysis runs on. Work is expressed as parallel
 * loops over an index range (switches of one rank, leaves, destination blocks, permutations, ...):
 * workers claim chunks of the range dynamically, so uneven items balance, and {@link #forRange}
 * returns only when the whole range is done, so that each call is a barrier. The calling thread
 * takes part as worker 0, hence a pool of {@code threads} keeps {@code threads - 1} threads of its
 * own (none for a single thread, where loops run inline). Engines create their pool from their
 * thread count and close it with themselves; analyses use one per run.
 *
 * <p>Results never depend on the number of threads as long as each index writes only its own
 * data, or each worker accumulates into its own state and the caller merges the workers in an
 * order-insensitive way (sums, maxima, unions), which is how every loop is written.
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
     * @param name the engine or analysis, e.g. {@code dmodc}: names the threads and prefixes errors
     * @throws RoutingException when {@code threads < 1}
     */
    public RoutingPool(int threads, String name) {
        if (threads < 1) {
            throw new RoutingException(name + ": routing threads must be at least 1, got " + threads);
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
     * waits for all of them. An exception thrown by any chunk is rethrown here, once the other
     * workers have finished the chunks they hold (no further chunk is started).
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

    /**
     * Runs {@code consumer(i)} for every item {@code i} of {@code [0, items)}, one item at a time,
     * each worker with its own consumer from {@code factory} (its scratch arrays and partial
     * result), and returns the consumers: one per worker that could take part,
     * {@code max(1, min(threads, items))} of them, in worker order.
     */
    public <W extends IntConsumer> List<W> forEach(int items, Supplier<W> factory) {
        return forEach(items, factory, () -> false);
    }

    /**
     * {@link #forEach(int, Supplier)}, checking {@code abandon} before each item: once it is true, no worker
     * starts another item and {@link AbandonedException} is thrown here when the items under way are done.
     */
    public <W extends IntConsumer> List<W> forEach(int items, Supplier<W> factory, BooleanSupplier abandon) {
        int count = Math.max(1, Math.min(threads, items));
        List<W> workers = new ArrayList<>(count);
        for (int w = 0; w < count; w++) {
            workers.add(factory.get());
        }
        forRange(items, 1, (worker, from, to) -> {
            IntConsumer consumer = workers.get(worker);
            for (int i = from; i < to; i++) {
                if (abandon.getAsBoolean()) {
                    throw new AbandonedException();
                }
                consumer.accept(i);
            }
        });
        return workers;
    }

    private static void claim(int worker, int count, int chunk, AtomicInteger next, RangeTask task) {
        try {
            while (true) {
                int from = next.getAndAdd(chunk);
                if (from >= count) {
                    return;
                }
                task.run(worker, from, Math.min(count, from + chunk));
            }
        } catch (RuntimeException | Error e) {
            next.set(count); // the others stop claiming: the loop has failed
            throw e;
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
