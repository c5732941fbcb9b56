package org.fabricmanager.routing.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * Runs items {@code 0..items-1} on up to {@code threads} short-lived threads, each with its own
 * worker (its own scratch arrays and partial result), fetching items dynamically so that uneven
 * items balance. The caller merges the workers' results, in worker order, which keeps results
 * independent of the thread count as long as merging is order-insensitive (sums, maxima, unions).
 */
final class Parallel {
    private Parallel() {
    }

    static <W extends IntConsumer> List<W> run(int threads, int items, Supplier<W> factory) {
        int count = Math.max(1, Math.min(threads, items));
        List<W> workers = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            workers.add(factory.get());
        }
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> started = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            W worker = workers.get(i);
            Thread t = new Thread(() -> drain(worker, next, items, failure), "fabric-analysis-" + i);
            t.setDaemon(true);
            t.start();
            started.add(t);
        }
        drain(workers.get(0), next, items, failure);
        boolean interrupted = false;
        for (Thread t : started) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                    failure.compareAndSet(null, e);
                    next.set(items);
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Throwable t = failure.get();
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        if (t != null) {
            throw new IllegalStateException("analysis interrupted", t);
        }
        return workers;
    }

    private static void drain(IntConsumer worker, AtomicInteger next, int items, AtomicReference<Throwable> failure) {
        try {
            for (int item = next.getAndIncrement(); item < items && failure.get() == null; item = next.getAndIncrement()) {
                worker.accept(item);
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }
}
