package org.fabricmanager.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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
    /** What the loops of {@link #abandoning}'s body check before each chunk; {@code null} outside one. */
    private volatile BooleanSupplier abandon;

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
     *
     * <p>The caller waits for the chunks, not for the pool's threads: a thread that has not started
     * by the time the caller has claimed the last chunk finds nothing left and is not waited for. On
     * a host whose cores are busy (a daemon beside its agents, its quality measurement, a collector)
     * a pool thread can wait a scheduler slice to run, and a re-route's small loops would each wait
     * for it; and a pool closed while a loop runs drops its queued tasks, which a wait for them
     * would never see end.
     */
    public void forRange(int count, int grain, RangeTask task) {
        if (count <= 0) {
            return;
        }
        int chunk = Math.max(1, grain);
        int chunks = (count + chunk - 1) / chunk;
        int workers = Math.min(threads, chunks);
        BooleanSupplier given = abandon;
        if (given != null) {
            RangeTask body = task;
            task = (worker, from, to) -> {
                if (given.getAsBoolean()) {
                    throw new AbandonedException();
                }
                body.run(worker, from, to);
            };
        }
        if (workers <= 1 || executor == null) {
            if (given == null) {
                task.run(0, 0, count);
            } else {
                for (int c = 0; c < chunks; c++) {
                    task.run(0, c * chunk, Math.min(count, (c + 1) * chunk));
                }
            }
            return;
        }
        Loop loop = new Loop(count, chunk, chunks, task);
        for (int w = 1; w < workers; w++) {
            int worker = w;
            executor.execute(() -> loop.claim(worker));
        }
        loop.claim(0);
        loop.awaitChunks();
        Throwable failure = loop.failure.get();
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
     * Runs {@code body} with every {@link #forRange} of this pool checking {@code abandon} before each chunk: once it
     * is true, no chunk starts and {@link AbandonedException} comes out of the loop, and of {@code body} unless it
     * catches it. For a long computation that a newer one makes useless (a refinement overtaken by a fault): the
     * cores come back within a chunk's time. One caller at a time, as an engine's pool has.
     */
    public <T> T abandoning(BooleanSupplier abandon, Supplier<T> body) {
        BooleanSupplier outer = this.abandon;
        this.abandon = abandon;
        try {
            return body.get();
        } finally {
            this.abandon = outer;
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

    /**
     * One {@link #forRange} call: chunks are claimed by number, and the caller waits until every chunk is finished,
     * or given up after a failure (the first failure is kept; no chunk starts after it).
     */
    private static final class Loop {
        private final int count;
        private final int chunk;
        private final int chunks;
        private final RangeTask task;
        private final AtomicInteger next = new AtomicInteger();
        private final AtomicInteger finished = new AtomicInteger();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        Loop(int count, int chunk, int chunks, RangeTask task) {
            this.count = count;
            this.chunk = chunk;
            this.chunks = chunks;
            this.task = task;
        }

        void claim(int worker) {
            while (true) {
                int c = next.getAndIncrement();
                if (c >= chunks) {
                    return;
                }
                try {
                    task.run(worker, c * chunk, Math.min(count, (c + 1) * chunk));
                } catch (RuntimeException | Error e) {
                    failure.compareAndSet(null, e);
                    // the others stop claiming: the chunks nobody took are given up, as finished
                    int unclaimed = chunks - Math.min(chunks, next.getAndSet(chunks));
                    finish(1 + unclaimed);
                    return;
                }
                finish(1);
            }
        }

        private void finish(int n) {
            if (finished.addAndGet(n) == chunks) {
                synchronized (this) {
                    notifyAll();
                }
            }
        }

        /** Returns once every chunk is finished or given up; the workers' writes are then visible here. */
        void awaitChunks() {
            if (finished.get() == chunks) {
                return;
            }
            boolean interrupted = false;
            synchronized (this) {
                while (finished.get() != chunks) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        // the chunks under way write into the caller's arrays: they must end before it goes on
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
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
