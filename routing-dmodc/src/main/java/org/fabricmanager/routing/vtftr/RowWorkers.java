package org.fabricmanager.routing.vtftr;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.fabricmanager.routing.RoutingException;

/**
 * The threads the VTFTR engine owns: runs items {@code 0..n-1} (switch rows, destinations) over
 * {@code threads} workers fetching items dynamically, each worker with its own scratch state. With
 * one thread everything runs on the caller. Workers write disjoint parts of shared arrays, so
 * results do not depend on the number of threads.
 */
final class RowWorkers implements AutoCloseable {
    private final int threads;
    private final ExecutorService pool;

    RowWorkers(int threads) {
        if (threads < 1) {
            throw new RoutingException("vtftr: routing threads must be at least 1, got " + threads);
        }
        this.threads = threads;
        AtomicInteger counter = new AtomicInteger();
        this.pool = threads == 1 ? null : Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "vtftr-routing-" + counter.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs every item once; each worker gets its own consumer from {@code workers}. */
    <W extends IntConsumer> List<W> forEach(int items, Supplier<W> workers) {
        List<W> made = new ArrayList<>();
        if (pool == null || items <= 1) {
            W worker = workers.get();
            made.add(worker);
            for (int i = 0; i < items; i++) {
                worker.accept(i);
            }
            return made;
        }
        AtomicInteger next = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        for (int w = 0; w < Math.min(threads, items); w++) {
            W worker = workers.get();
            made.add(worker);
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
                failure = new RoutingException("vtftr: routing interrupted", e);
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
        return made;
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
