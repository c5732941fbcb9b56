package org.fabricmanager.daemon.control;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A control loop on virtual time, run by its caller's thread: appended actions wait until {@link #runPending} (they
 * may be appended from other threads, e.g. the routing service's), deferred ones until virtual time reaches their
 * deadline through {@link #advance}. Everything runs in order; the chaos simulation and the managers' unit tests
 * drive the daemon with it.
 */
public class VirtualTimeLoop implements ControlLoop {
    private final ConcurrentLinkedQueue<Runnable> ready = new ConcurrentLinkedQueue<>();
    private final Map<String, Deferred> deferred = new HashMap<>();
    private long nowMs;
    private long seq;

    private record Deferred(String tag, long deadline, long seq, Runnable action) {
    }

    @Override
    public void append(String name, Runnable action) {
        ready.add(action);
    }

    @Override
    public void scheduleDeferred(String tag, long delayMs, Runnable action) {
        deferred.put(tag, new Deferred(tag, nowMs + delayMs, seq++, action));
    }

    @Override
    public boolean cancelDeferred(String tag) {
        return deferred.remove(tag) != null;
    }

    /** True when an action is pending under {@code tag}. */
    public boolean isScheduled(String tag) {
        return deferred.containsKey(tag);
    }

    /** Runs the appended actions (and those they append) until none is left; returns how many ran. */
    public final int runPending() {
        int n = 0;
        Runnable r;
        while ((r = ready.poll()) != null) {
            r.run();
            n++;
        }
        return n;
    }

    /** Drops every action appended or deferred: what a process that crashed had queued dies with it. */
    public void clear() {
        ready.clear();
        deferred.clear();
    }

    /** True when an appended action waits for {@link #runPending}. */
    public boolean hasPending() {
        return !ready.isEmpty();
    }

    /** Moves virtual time by {@code ms}, running the deferred actions that come due, in deadline order. */
    public final void advance(long ms) {
        long target = nowMs + ms;
        while (true) {
            runPending();
            List<Deferred> due = new ArrayList<>();
            for (Deferred d : deferred.values()) {
                if (d.deadline() <= target) {
                    due.add(d);
                }
            }
            if (due.isEmpty()) {
                break;
            }
            Deferred first = due.stream().min(Comparator.comparingLong(Deferred::deadline)
                    .thenComparingLong(Deferred::seq)).orElseThrow();
            deferred.remove(first.tag());
            nowMs = Math.max(nowMs, first.deadline());
            first.action().run();
        }
        nowMs = target;
        runPending();
    }

    /** Virtual time in ms since the loop was made. */
    public final long nowMs() {
        return nowMs;
    }
}
