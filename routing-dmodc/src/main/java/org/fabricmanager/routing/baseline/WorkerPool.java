package org.fabricmanager.routing.baseline;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.fabricmanager.routing.RoutingException;

/**
 * The threads a baseline engine owns: runs items {@code 0..n-1} over {@code threads} workers, each
 * with its own scratch state, items fetched dynamically. With one thread everything runs on the
 * caller. Callers only write disjoint parts of shared arrays, so results do not depend on the
 * number of threads.
 */
final class WorkerPool implements AutoCloseable {
    private final int threads;
    private final ExecutorService pool;

    WorkerPool(String name, int threads) {
        if (threads < 1) {
            throw new RoutingException(name + ": routing threads must be at least 1, got " + threads);
        }
        this.threads = threads;
        if (threads == 1) {
            this.pool = null;
        } else {
            AtomicInteger counter = new AtomicInteger();
            ThreadFactory factory = r -> {
                Thread t = new Thread(r, name + "-routing-" + counter.incrementAndGet());
                t.setDaemon(true);
                return t;
            };
            this.pool = Executors.newFixedThreadPool(threads, factory);
        }
    }

    int threads() {
        return threads;
    }

    /** Runs every item once; each worker gets its own consumer from {@code workers}. */
    void forEach(int items, Supplier<IntConsumer> workers) {
        if (pool == null || items <= 1) {
            IntConsumer worker = workers.get();
            for (int i = 0; i < items; i++) {
                worker.accept(i);
            }
            return;
        }
        AtomicInteger next = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        for (int w = 0; w < Math.min(threads, items); w++) {
            IntConsumer worker = workers.get();
            futures.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < items; i = next.getAndIncrement()) {
                    worker.accept(i);
                }
            }));
        }
        RuntimeException failure = null;
        for (Future<?> f : futures) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                next.set(items);
                failure = new RoutingException("routing interrupted", e);
            } catch (ExecutionException e) {
                next.set(items);
                Throwable cause = e.getCause();
                if (cause instanceof Error err) {
                    throw err;
                }
                if (failure == null) {
                    failure = cause instanceof RuntimeException r ? r : new RoutingException(cause.toString(), cause);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
