package org.fabricmanager.detector.sim;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.fabricmanager.detector.DetectorMetrics;
import org.fabricmanager.detector.RingMember;
import org.fabricmanager.detector.RingTransport;
import org.fabricmanager.detector.StartMode;
import org.fabricmanager.detector.TimerHandle;
import org.fabricmanager.detector.message.BroadcastCopy;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.message.Heartbeat;
import org.fabricmanager.detector.message.Join;
import org.fabricmanager.detector.message.NewObserver;
import org.fabricmanager.detector.message.RingMessage;
import org.fabricmanager.detector.message.StateSync;

/**
 * A discrete-event simulation of n {@link RingMember}s: one thread, a virtual clock in nanoseconds
 * and a priority queue of message deliveries, timers and scripted actions ordered by (time, insertion
 * order). All randomness (message delays, losses, timer lateness) comes from one seeded generator
 * drawn in event order, so a configuration and a script always give the same run.
 *
 * <p>A crashed member drops everything addressed to it; a paused member keeps its events and handles
 * them, in their original order, when the pause ends (like a process stopped by a long GC pause); a
 * lagging member handles each of its events late by a random amount (like a process on an overloaded
 * machine, whose event loop runs behind); a restarted member is a fresh {@link RingMember} that joins
 * the running ring.
 */
public final class Simulation {
    /** Sees every event every member's listener receives, with the virtual time. */
    @FunctionalInterface
    public interface Probe {
        Probe NONE = (member, event, nanos) -> { };

        void onEvent(int member, DetectorEvent event, long nanos);
    }

    /** Decides, message by message, which ones the network loses on purpose (partitions, targeted loss). */
    @FunctionalInterface
    public interface DropRule {
        DropRule NONE = (from, to, message, nanos) -> false;

        boolean drop(int from, int to, RingMessage message, long nanos);
    }

    private static final int CONTROL = 0;
    private static final int DELIVER = 1;
    private static final int TIMER = 2;

    private final SimulationConfig config;
    private final DetectorMetrics metrics;
    private final Probe probe;
    private final SplittableRandom random;
    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private final Slot[] slots;
    private DropRule dropRule = DropRule.NONE;
    private long now;
    private long sequence;
    private long heartbeats;
    private long newObservers;
    private long joins;
    private long stateSyncs;
    private long broadcastCopies;
    private long lastChangeNanos;
    private MessageCounts countsAtLastChange = new MessageCounts(0, 0, 0, 0, 0);

    /**
     * Creates the members (not started) sharing one set of meters in {@code registry}.
     */
    public Simulation(SimulationConfig config, MeterRegistry registry, Probe probe) {
        this.config = Objects.requireNonNull(config, "config");
        this.metrics = new DetectorMetrics(registry);
        this.probe = Objects.requireNonNull(probe, "probe");
        this.random = new SplittableRandom(config.seed());
        this.slots = new Slot[config.members()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot();
            slots[i].member = newMember(i, StartMode.BOOTSTRAP);
        }
    }

    public SimulationConfig config() {
        return config;
    }

    /** Virtual time in nanoseconds. */
    public long now() {
        return now;
    }

    /** The random generator of the run, for scripts that need to draw (e.g. which members fail). */
    public SplittableRandom random() {
        return random;
    }

    /** The member currently at ring index {@code i} (a new object after a restart). */
    public RingMember member(int i) {
        return slots[i].member;
    }

    /** Whether member {@code i} is running (started and not crashed; a paused member is up). */
    public boolean isUp(int i) {
        return slots[i].up;
    }

    public int size() {
        return slots.length;
    }

    /** Starts every member in bootstrap mode at a uniformly drawn time in [now, now + spread). */
    public void startAll(long spreadNanos) {
        for (int i = 0; i < slots.length; i++) {
            int m = i;
            long offset = spreadNanos > 0 ? random.nextLong(spreadNanos) : 0;
            at(now + offset, () -> {
                slots[m].up = true;
                slots[m].member.start();
            });
        }
    }

    /**
     * Starts every member but {@code vacant} as {@link #startAll} does, each with {@code vacant} (ascending) in its
     * dead set from the start ({@link RingMember#startDead}): ring slots whose process is not there yet. Messages to
     * a vacant slot are lost; a process takes one with {@link #restart}.
     */
    public void startAllBut(int[] vacant, long spreadNanos) {
        boolean[] skip = new boolean[slots.length];
        for (int v : vacant) {
            skip[v] = true;
        }
        for (int i = 0; i < slots.length; i++) {
            if (skip[i]) {
                continue;
            }
            int m = i;
            slots[m].member.startDead(vacant);
            long offset = spreadNanos > 0 ? random.nextLong(spreadNanos) : 0;
            at(now + offset, () -> {
                slots[m].up = true;
                slots[m].member.start();
            });
        }
    }

    /** Member {@code m} crashes at {@code atNanos}: it stops and everything addressed to it is lost. */
    public void crash(int m, long atNanos) {
        at(atNanos, () -> {
            Slot s = slots[m];
            s.up = false;
            s.generation++;
            s.member.stop();
        });
    }

    /** Member {@code m} does nothing from {@code atNanos} for {@code durationNanos}, then catches up. */
    public void pause(int m, long atNanos, long durationNanos) {
        at(atNanos, () -> slots[m].pausedUntil = Math.max(slots[m].pausedUntil, now + durationNanos));
    }

    /**
     * From {@code atNanos} for {@code durationNanos}, member {@code m} handles each message and timer late by
     * a uniform amount in [0, {@code maxLagNanos}], drawn per event (so events may overtake each other, as
     * datagrams and timers of a starved event loop do).
     */
    public void lag(int m, long atNanos, long durationNanos, long maxLagNanos) {
        if (durationNanos < 0 || maxLagNanos < 0) {
            throw new IllegalArgumentException("lag needs durations >= 0, got " + durationNanos + " and " + maxLagNanos);
        }
        at(atNanos, () -> {
            slots[m].lagUntil = now + durationNanos;
            slots[m].maxLag = maxLagNanos;
        });
    }

    /** A fresh process takes ring index {@code m} at {@code atNanos} and joins the running ring. */
    public void restart(int m, long atNanos) {
        restart(m, atNanos, new int[0]);
    }

    /**
     * As {@link #restart(int, long)}, the process knowing {@code deadAtStart} (ascending) dead from the start, as a
     * late switch's member is told the slots still vacant in its JOIN window: it never addresses them.
     */
    public void restart(int m, long atNanos, int[] deadAtStart) {
        at(atNanos, () -> {
            Slot s = slots[m];
            s.generation++;
            s.up = true;
            s.pausedUntil = 0;
            s.member = newMember(m, StartMode.JOIN);
            s.member.startDead(deadAtStart);
            s.seenChanges = s.member.changeCount();
            s.member.start();
            track(s);
        });
    }

    /** From now on, messages for which {@code rule} answers true are lost (on top of random loss). */
    public void dropIf(DropRule rule) {
        this.dropRule = Objects.requireNonNull(rule, "rule");
    }

    /** Runs {@code action} on the simulation thread at virtual time {@code atNanos}. */
    public void at(long atNanos, Runnable action) {
        if (atNanos < now) {
            throw new IllegalArgumentException("cannot schedule in the past: " + atNanos + " < " + now);
        }
        queue.add(new Event(atNanos, sequence++, CONTROL, -1, 0, action));
    }

    /** Processes every event up to and including {@code untilNanos}, then sets the clock there. */
    public void runUntil(long untilNanos) {
        Event e;
        while ((e = queue.peek()) != null && e.time <= untilNanos) {
            queue.poll();
            process(e);
        }
        now = Math.max(now, untilNanos);
    }

    /** Messages sent so far, by type. */
    public MessageCounts messageCounts() {
        return new MessageCounts(heartbeats, newObservers, joins, stateSyncs, broadcastCopies);
    }

    /** Virtual time of the last change (view, phase, emitter or observer) at any member. */
    public long lastChangeNanos() {
        return lastChangeNanos;
    }

    /** {@link #messageCounts()} as they were right after the last change. */
    public MessageCounts countsAtLastChange() {
        return countsAtLastChange;
    }

    private RingMember newMember(int index, StartMode mode) {
        return new RingMember(index, slots.length, config.parameters(), mode, new SlotTransport(index),
                event -> probe.onEvent(index, event, now), metrics);
    }

    private void process(Event e) {
        now = e.time;
        if (e.kind == CONTROL) {
            ((Runnable) e.payload).run();
            return;
        }
        Slot s = slots[e.member];
        if (!s.up || (e.kind == TIMER && e.generation != s.generation)) {
            return;
        }
        if (s.pausedUntil > now) {
            queue.add(new Event(s.pausedUntil, sequence++, e.kind, e.member, e.generation, e.payload));
            return;
        }
        if (!e.lagged && s.lagUntil > now && s.maxLag > 0) {
            Event later = new Event(now + random.nextLong(s.maxLag + 1), sequence++, e.kind, e.member, e.generation, e.payload);
            later.lagged = true;
            queue.add(later);
            return;
        }
        if (e.kind == DELIVER) {
            s.member.deliver((RingMessage) e.payload);
        } else {
            SimTimer t = (SimTimer) e.payload;
            if (t.cancelled) {
                return;
            }
            t.cancelled = true;
            t.action.run();
        }
        track(s);
    }

    private void track(Slot s) {
        long c = s.member.changeCount();
        if (c != s.seenChanges) {
            s.seenChanges = c;
            lastChangeNanos = now;
            countsAtLastChange = messageCounts();
        }
    }

    private void count(RingMessage message) {
        if (message instanceof Heartbeat) {
            heartbeats++;
        } else if (message instanceof BroadcastCopy) {
            broadcastCopies++;
        } else if (message instanceof NewObserver) {
            newObservers++;
        } else if (message instanceof StateSync) {
            stateSyncs++;
        } else if (message instanceof Join) {
            joins++;
        }
    }

    /** One member's view of the simulated world. */
    private final class SlotTransport implements RingTransport {
        private final int index;

        SlotTransport(int index) {
            this.index = index;
        }

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void send(int to, RingMessage message) {
            if (to < 0 || to >= slots.length) {
                throw new IllegalArgumentException("member " + index + " sends to non-member " + to);
            }
            count(message);
            if (dropRule.drop(index, to, message, now)) {
                return;
            }
            if (config.lossProbability() > 0 && random.nextDouble() < config.lossProbability()) {
                return;
            }
            long spread = config.tauNanos() - config.tauMinNanos();
            long delay = config.tauMinNanos() + (spread > 0 ? random.nextLong(spread + 1) : 0);
            queue.add(new Event(now + delay, sequence++, DELIVER, to, 0, message));
        }

        @Override
        public TimerHandle schedule(long delayNanos, Runnable action) {
            long late = config.timerDelayMaxNanos() > 0 ? random.nextLong(config.timerDelayMaxNanos() + 1) : 0;
            SimTimer timer = new SimTimer(action);
            queue.add(new Event(now + Math.max(0, delayNanos) + late, sequence++, TIMER, index, slots[index].generation, timer));
            return timer;
        }
    }

    private static final class SimTimer implements TimerHandle {
        private final Runnable action;
        private boolean cancelled;

        SimTimer(Runnable action) {
            this.action = action;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    private static final class Slot {
        RingMember member;
        boolean up;
        int generation;
        long pausedUntil;
        long lagUntil;
        long maxLag;
        long seenChanges;
    }

    private static final class Event implements Comparable<Event> {
        final long time;
        final long seq;
        final int kind;
        final int member;
        final int generation;
        final Object payload;
        /** Already delayed once by a lag: handled when due. */
        boolean lagged;

        Event(long time, long seq, int kind, int member, int generation, Object payload) {
            this.time = time;
            this.seq = seq;
            this.kind = kind;
            this.member = member;
            this.generation = generation;
            this.payload = payload;
        }

        @Override
        public int compareTo(Event o) {
            int c = Long.compare(time, o.time);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }
}
