package org.fabricmanager.daemon.control;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-threaded event loop: events appended from any thread run one at a time, in order, on the
 * queue's own thread. Deferred events run at a deadline and carry a tag; scheduling a tag again
 * replaces the pending event (which is how bursts are debounced without sleeping), and a tag can be
 * cancelled. An event that throws is logged and the loop goes on.
 */
public final class EventQueue implements ControlLoop, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventQueue.class);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private final ArrayDeque<Named> ready = new ArrayDeque<>();
    private final PriorityQueue<Deferred> deferred = new PriorityQueue<>();
    private final Map<String, Deferred> byTag = new HashMap<>();
    private final Thread thread;
    private long sequence;
    private boolean closing;
    private volatile long processed;
    private volatile long failures;
    private final SlowEvents slowEvents = new SlowEvents();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    /** An event ready to run, and when it became due (appended, or its deadline): how long it waited. */
    private record Named(String name, Runnable action, long dueNanos) {
    }

    private static final class Deferred implements Comparable<Deferred> {
        final String tag;
        final long deadline;
        final long seq;
        final Runnable action;
        boolean cancelled;

        Deferred(String tag, long deadline, long seq, Runnable action) {
            this.tag = tag;
            this.deadline = deadline;
            this.seq = seq;
            this.action = action;
        }

        @Override
        public int compareTo(Deferred o) {
            int c = Long.compare(deadline - o.deadline, 0);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    /** Starts the queue's thread. */
    public EventQueue(String threadName) {
        thread = new Thread(this::loop, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    /** Runs {@code action} after every event appended before it. */
    @Override
    public void append(String name, Runnable action) {
        lock.lock();
        try {
            if (closing) {
                LOG.debug("event queue closed, dropping {}", name);
                return;
            }
            ready.addLast(new Named(name, action, System.nanoTime()));
            wake.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs {@code action} after {@code delayMs}, replacing any pending event with the same tag.
     */
    @Override
    public void scheduleDeferred(String tag, long delayMs, Runnable action) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, delayMs));
        lock.lock();
        try {
            if (closing) {
                return;
            }
            Deferred previous = byTag.remove(tag);
            if (previous != null) {
                previous.cancelled = true;
            }
            Deferred d = new Deferred(tag, deadline, sequence++, action);
            byTag.put(tag, d);
            deferred.add(d);
            wake.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Cancels the pending event with {@code tag}; returns whether there was one. */
    @Override
    public boolean cancelDeferred(String tag) {
        lock.lock();
        try {
            Deferred d = byTag.remove(tag);
            if (d != null) {
                d.cancelled = true;
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** True when an event with {@code tag} is pending. */
    public boolean isScheduled(String tag) {
        lock.lock();
        try {
            return byTag.containsKey(tag);
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code call} on the queue's thread and completes the future with its result. */
    @Override
    public <T> CompletableFuture<T> call(String name, Callable<T> call) {
        CompletableFuture<T> future = new CompletableFuture<>();
        lock.lock();
        try {
            if (closing) {
                future.completeExceptionally(new RejectedExecutionException("event queue is closed"));
                return future;
            }
            ready.addLast(new Named(name, () -> {
                try {
                    future.complete(call.call());
                } catch (Throwable t) {
                    future.completeExceptionally(t);
                }
            }, System.nanoTime()));
            wake.signal();
        } finally {
            lock.unlock();
        }
        return future;
    }

    /** True when called from the queue's own thread. */
    public boolean inQueueThread() {
        return Thread.currentThread() == thread;
    }

    /** Events run so far. */
    public long processed() {
        return processed;
    }

    /** Events that threw. */
    public long failures() {
        return failures;
    }

    private void loop() {
        while (true) {
            Named next;
            lock.lock();
            try {
                next = null;
                while (next == null) {
                    if (closing && ready.isEmpty()) {
                        return;
                    }
                    if (!ready.isEmpty()) {
                        next = ready.pollFirst();
                        break;
                    }
                    Deferred head = deferred.peek();
                    while (head != null && head.cancelled) {
                        deferred.poll();
                        head = deferred.peek();
                    }
                    if (head == null) {
                        wake.awaitUninterruptibly();
                        continue;
                    }
                    long wait = head.deadline - System.nanoTime();
                    if (wait <= 0) {
                        deferred.poll();
                        byTag.remove(head.tag, head);
                        next = new Named(head.tag, head.action, head.deadline);
                    } else {
                        try {
                            wake.awaitNanos(wait);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                }
            } finally {
                lock.unlock();
            }
            boolean cpu = slowEvents.wantsCpu();
            long cpuStart = cpu ? threads.getCurrentThreadCpuTime() : 0;
            long start = System.nanoTime();
            try {
                next.action().run();
            } catch (Throwable t) {
                failures++;
                LOG.error("control event '{}' failed", next.name(), t);
            }
            long end = System.nanoTime();
            slowEvents.ran(next.name(), start - next.dueNanos(), end - start,
                    cpu ? threads.getCurrentThreadCpuTime() - cpuStart : -1, end);
            processed++;
        }
    }

    /** Runs the events already appended, drops deferred ones, and stops the thread. */
    @Override
    public void close() {
        lock.lock();
        try {
            closing = true;
            deferred.clear();
            byTag.clear();
            wake.signal();
        } finally {
            lock.unlock();
        }
        if (!inQueueThread()) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
