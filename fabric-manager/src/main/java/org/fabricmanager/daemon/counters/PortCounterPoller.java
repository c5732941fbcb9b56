package org.fabricmanager.daemon.counters;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.SwitchSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks every admitted switch whose agent announces port counters for them once every interval
 * ({@code linkHealth.pollIntervalMs}, {@link #INTERVAL_MS} by default), and keeps the answers in a
 * {@link PortCounterStore}. The polls are spread: a tick every {@link #TICK_MS} on the control thread asks the
 * switches of one slice (a switch's slice follows from its GUID), so 5,120 switches make 512 requests a second, not a
 * burst of 5,120 every ten. A tick's work is its slice's switches: the slices are sorted out again only when the
 * admitted switches changed ({@link SwitchRegistry#changes()}), not by walking every switch each second. A switch with a new session is asked at the next tick, whatever its slice,
 * so that its counters are known within a second of its admission (and a restarted agent's count from zero soon),
 * once the daemon has first converged: until then (at most {@link #HOLD_TICKS_MAX} ticks) the start's push has the
 * cores. A switch has at most one poll in flight, which fails after an interval;
 * an agent answers only what it is asked ({@code docs/protocol.md}, section 3.17), so the daemon's load from
 * counters is bounded by its own polling whatever the agents do.
 */
public final class PortCounterPoller {
    /** How often each switch is asked. */
    public static final long INTERVAL_MS = 10_000;
    /** How often a slice of the switches is asked. */
    static final long TICK_MS = 1_000;
    /** The longest the polls wait for the daemon's first convergence (ticks). */
    static final int HOLD_TICKS_MAX = 30;
    /** Deferred-event tag of the tick. */
    static final String TICK = "port-counters";
    private static final Logger LOG = LoggerFactory.getLogger(PortCounterPoller.class);
    private final long intervalMs;
    private final int slices;
    /** Each slice's admitted switches, as of {@link #sortedAt} (control thread). */
    private final List<List<ManagedSwitch>> bySlice = new ArrayList<>();
    private long sortedAt = -1;

    private final SwitchRegistry registry;
    private final ControlLoop queue;
    private final PortCounterStore store;
    private final LongSupplier clock;
    private final LongSupplier nanoClock;
    private final Set<Long> inFlight = ConcurrentHashMap.newKeySet();
    /** The session each switch was last asked on (control thread): a new session is asked at the next tick. */
    private final Map<Long, Long> askedSession = new HashMap<>();
    private long tick;
    /** Until the daemon first converges (or {@link #HOLD_TICKS_MAX} ticks), no switch is asked. */
    private final BooleanSupplier converged;
    private int held;
    private volatile boolean stopped;
    /** Told of each report once stored (on the thread that completed the poll), or {@code null}. */
    private volatile ReportListener listener;

    /** Told of each switch's report once stored. */
    @FunctionalInterface
    public interface ReportListener {
        /** Switch {@code guid} answered {@code counters} at {@code answeredNanos} (monotonic); any thread. */
        void reported(long guid, PortCounters counters, long answeredNanos);
    }

    /**
     * @param clock     wall-clock time in ms, for the reports' age
     * @param nanoClock monotonic time in ns, for the time between two polls (which tells a count from a lie)
     * @param converged whether the daemon has converged (control thread): at a start, thousands of switches'
     *                  first counters would take the agents' and the daemon's cores from the first push
     */
    public PortCounterPoller(SwitchRegistry registry, ControlLoop queue, PortCounterStore store, LongSupplier clock,
                             LongSupplier nanoClock, BooleanSupplier converged) {
        this(registry, queue, store, clock, nanoClock, converged, INTERVAL_MS);
    }

    /** @param intervalMs how often each switch is asked, whole seconds */
    public PortCounterPoller(SwitchRegistry registry, ControlLoop queue, PortCounterStore store, LongSupplier clock,
                             LongSupplier nanoClock, BooleanSupplier converged, long intervalMs) {
        this.intervalMs = intervalMs;
        this.slices = (int) Math.max(1, intervalMs / TICK_MS);
        for (int i = 0; i < slices; i++) {
            bySlice.add(new ArrayList<>());
        }
        this.converged = converged;
        this.registry = registry;
        this.queue = queue;
        this.store = store;
        this.clock = clock;
        this.nanoClock = nanoClock;
    }

    /** Asks this tick's slice now and schedules the next tick (control thread). */
    public void tick() {
        if (stopped) {
            return;
        }
        if (held >= 0 && !converged.getAsBoolean() && held++ < HOLD_TICKS_MAX) {
            queue.scheduleDeferred(TICK, TICK_MS, this::tick);
            return;
        }
        held = -1; // from the first convergence on, counters are polled whatever the state
        int slice = (int) (tick++ % slices);
        if (registry.changes() != sortedAt) {
            // a switch came or went (a new session is one that went and came): sorted again, the new ones asked now
            sortedAt = registry.changes();
            bySlice.forEach(List::clear);
            for (ManagedSwitch ms : registry.all()) {
                if (!ms.admitted()) {
                    continue;
                }
                int own = slice(ms.guid(), slices);
                bySlice.get(own).add(ms);
                Long asked = askedSession.get(ms.guid());
                if (own != slice && (asked == null || asked != ms.session().id())) {
                    poll(ms); // this slice's are asked below
                }
            }
        }
        for (ManagedSwitch ms : bySlice.get(slice)) {
            poll(ms);
        }
        queue.scheduleDeferred(TICK, TICK_MS, this::tick);
    }

    /** Asks switch {@code ms} now, unless its agent reports no counters or a poll of it is in flight (control thread). */
    public void poll(ManagedSwitch ms) {
        SwitchSession session = ms.session();
        long guid = ms.guid();
        long incarnation = ms.hello().incarnation();
        if (askedSession.size() < PortCounterStore.MAX_SWITCHES || askedSession.containsKey(guid)) {
            askedSession.put(guid, session.id());
        }
        if ((ms.hello().features() & Protocol.FEATURE_PORT_COUNTERS) == 0 || !inFlight.add(guid)) {
            return;
        }
        long askedNanos = nanoClock.getAsLong();
        session.requestCounters(intervalMs).whenComplete((counters, failure) -> {
            inFlight.remove(guid);
            if (failure == null) {
                long answered = nanoClock.getAsLong();
                store.put(guid, incarnation, counters, new PortCounterStore.Poll(askedNanos, answered,
                        clock.getAsLong()));
                ReportListener l = listener;
                if (l != null) {
                    l.reported(guid, counters, answered);
                }
            } else {
                LOG.debug("switch {}: no port counters: {}", ms, failure.getMessage());
            }
        });
    }

    /** Tells {@code l} of each report from now on (one listener: the gray-link monitor's). */
    public void onReport(ReportListener l) {
        listener = l;
    }

    /** Stops polling (the daemon stops). */
    public void stop() {
        stopped = true;
    }

    /** How often each switch is asked (ms). */
    public long intervalMs() {
        return intervalMs;
    }

    /** The slice of the interval a switch is asked in: its GUID mixed, so that neighbouring GUIDs spread. */
    static int slice(long guid, int slices) {
        long h = guid * 0x9E3779B97F4A7C15L;
        return (int) Long.remainderUnsigned(h ^ (h >>> 29), slices);
    }
}
