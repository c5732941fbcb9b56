package org.fabricmanager.detector;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.fabricmanager.detector.message.RingMessage;

/** A hand-driven clock and outbox for testing one {@link RingMember} step by step. */
final class ManualTransport implements RingTransport {
    record Sent(int to, RingMessage message, long at) {
    }

    private record Timer(long due, long seq, Runnable action, boolean[] cancelled) {
    }

    final List<Sent> sent = new ArrayList<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>((a, b) ->
            a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long now;
    private long seq;

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public void send(int to, RingMessage message) {
        sent.add(new Sent(to, message, now));
    }

    @Override
    public TimerHandle schedule(long delayNanos, Runnable action) {
        boolean[] cancelled = {false};
        timers.add(new Timer(now + delayNanos, seq++, action, cancelled));
        return () -> cancelled[0] = true;
    }

    /** Fires every timer due up to {@code t}, each at its due time, then sets the clock to {@code t}. */
    void advanceTo(long t) {
        fireUntil(t, false);
    }

    /** Jumps to {@code t} as if the process had been stopped, then fires the overdue timers late. */
    void jumpTo(long t) {
        now = Math.max(now, t);
        fireUntil(t, true);
    }

    private void fireUntil(long t, boolean late) {
        Timer timer;
        while ((timer = timers.peek()) != null && timer.due <= t) {
            timers.poll();
            if (!late) {
                now = timer.due;
            }
            if (!timer.cancelled[0]) {
                timer.action.run();
            }
        }
        now = Math.max(now, t);
    }

    long now() {
        return now;
    }

    <T extends RingMessage> List<T> sentOf(Class<T> type) {
        List<T> out = new ArrayList<>();
        for (Sent s : sent) {
            if (type.isInstance(s.message())) {
                out.add(type.cast(s.message()));
            }
        }
        return out;
    }

    <T extends RingMessage> List<Sent> sentWith(Class<T> type) {
        return sent.stream().filter(s -> type.isInstance(s.message())).toList();
    }
}
