package org.fabricmanager.daemon.opensm;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.control.ControlLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether OpenSM is there, judged on the control thread from its plug-in's keepalives (a CHANNEL every
 * {@value OpenSmWire#KEEPALIVE_MS} ms): OpenSM is <em>lost</em> when none came for {@value #LOST_AFTER_MS} ms (OpenSM
 * stopped, frozen, hung with its plug-in, or started without the plug-in), or when its subnet management packets stay
 * outstanding {@value #STUCK_AFTER_MS} ms with none answered (its state manager stuck while the plug-in's thread runs). Lost and
 * back are {@code OPENSM_LOST} and {@code OPENSM_BACK} events, {@code fabric.opensm.lost} (1 while lost, also when the
 * plug-in never connected within that time of the start; 0 without OpenSM), the status and the readiness; the
 * {@link Listener} hears both, so that the switches' tables are held as unreachable while OpenSM is lost and confirmed
 * again once it is back. Without {@code opensm:} configured it only exports its gauge at 0.
 */
public final class OpenSmLiveness {
    private static final Logger LOG = LoggerFactory.getLogger(OpenSmLiveness.class);
    /** Four keepalives missed. */
    public static final long LOST_AFTER_MS = 4 * OpenSmWire.KEEPALIVE_MS;
    /**
     * Packets outstanding with none received for three keepalives (OpenSM gives up on one after about a second): seen
     * at a keepalive, so noticed within one more.
     */
    public static final long STUCK_AFTER_MS = 3 * OpenSmWire.KEEPALIVE_MS;
    private static final long TICK_MS = 1_000;
    private static final String TICK = "opensm-liveness";
    private static final String[] SM_STATES = {"NOT_ACTIVE", "DISCOVERING", "STANDBY", "MASTER"};

    /** Where OpenSM stands. */
    public enum State {
        /** Its plug-in has not connected since the daemon started (not yet {@value #LOST_AFTER_MS} ms ago). */
        WAITING,
        UP,
        LOST
    }

    /** Told of OpenSM lost and back, on the control thread. */
    public interface Listener {
        void lost(String why);

        void back(String how);
    }

    /** Records a milestone (on the control thread). */
    @FunctionalInterface
    public interface Recorder {
        void record(Milestone.Kind kind, String message, Map<String, Object> details);
    }

    private final boolean enabled;
    private final ControlLoop loop;
    private final Recorder recorder;
    private final LongSupplier nanos;
    private final LongSupplier millis;
    private final Counter losses;
    private Listener listener = new Listener() {
        @Override
        public void lost(String why) {
        }

        @Override
        public void back(String how) {
        }
    };
    // control thread only, but for lost and the gauges' values, read by the sessions and the scrape
    private State state = State.WAITING;
    private long sinceMillis;
    private volatile String lostWhy;
    /** Back, and not yet UP: the confirmations it asked for are queued before it. */
    private boolean returning;
    private final long startNanos;
    private long keepaliveNanos = -1;
    private long progressNanos;
    /** When OpenSM last showed it worked (its last keepalive, or its last packet answered), at its loss. */
    private long lastSignNanos;
    private OpenSmWire.Keepalive last;
    private volatile long eventsDropped;
    private volatile long countersDropped;

    public OpenSmLiveness(boolean enabled, ControlLoop loop, Recorder recorder, MeterRegistry registry,
                          LongSupplier nanos, LongSupplier millis) {
        this.enabled = enabled;
        this.loop = loop;
        this.recorder = recorder;
        this.nanos = nanos;
        this.millis = millis;
        this.startNanos = nanos.getAsLong();
        this.sinceMillis = millis.getAsLong();
        Gauge.builder("fabric.opensm.lost", this, l -> l.lostWhy != null ? 1 : 0)
                .description("1 while OpenSM is lost (no keepalive of its plug-in, or its packets stuck); 0 otherwise"
                        + " and without OpenSM").register(registry);
        losses = Counter.builder("fabric.opensm.losses").description("times OpenSM was declared lost")
                .register(registry);
        Gauge.builder("fabric.opensm.plugin.dropped", this, l -> l.eventsDropped).tag("what", "events")
                .description("what OpenSM's plug-in dropped since OpenSM started (the daemon away or slow)")
                .register(registry);
        Gauge.builder("fabric.opensm.plugin.dropped", this, l -> l.countersDropped).tag("what", "counters")
                .description("what OpenSM's plug-in dropped since OpenSM started (the daemon away or slow)")
                .register(registry);
    }

    /** Starts judging (OpenSM configured): from now on, {@value #LOST_AFTER_MS} ms without a keepalive is a loss. */
    public void start(Listener l) {
        this.listener = l;
        if (enabled) {
            loop.scheduleDeferred(TICK, TICK_MS, this::tick);
        }
    }

    /** A keepalive of the plug-in (any thread). */
    public void keepalive(OpenSmWire.Keepalive k) {
        loop.append("opensm keepalive", () -> heard(k));
    }

    /** Port counter records the plug-in dropped so far, as its COUNTERS frames say (any thread). */
    public void countersDropped(long dropped) {
        countersDropped = dropped;
    }

    /** Why OpenSM is lost, or {@code null} while it is not (any thread). */
    public String lostWhy() {
        return lostWhy;
    }

    private void heard(OpenSmWire.Keepalive k) {
        long now = nanos.getAsLong();
        OpenSmWire.Keepalive before = last;
        keepaliveNanos = now;
        // received, not sent: a stuck OpenSM may still send (its retries) but hears nothing back
        if (before == null || k.madsOutstanding() == 0 || k.madsReceived() != before.madsReceived()) {
            progressNanos = now;
        }
        if (before != null && k.smState() != before.smState()) {
            record(Milestone.Kind.OPENSM_EVENT, "OpenSM's SM state is now " + smState(k.smState())
                    + (k.smState() == 3 ? "" : ": the daemon's tables reach the switches only through the master SM's"
                    + " plug-in"), Map.of("smState", smState(k.smState())));
        }
        if (k.eventsDropped() > eventsDropped) {
            LOG.warn("OpenSM's plug-in dropped {} events since OpenSM started ({} more): the daemon was away or slow",
                    k.eventsDropped(), k.eventsDropped() - eventsDropped);
        }
        eventsDropped = k.eventsDropped();
        last = k;
        judge(now);
    }

    private void tick() {
        judge(nanos.getAsLong());
        loop.scheduleDeferred(TICK, TICK_MS, this::tick);
    }

    private void judge(long now) {
        long silentMs = TimeUnit.NANOSECONDS.toMillis(now - (keepaliveNanos < 0 ? startNanos : keepaliveNanos));
        long stuckMs = TimeUnit.NANOSECONDS.toMillis(now - progressNanos);
        String why = null;
        if (silentMs >= LOST_AFTER_MS) {
            why = keepaliveNanos < 0 ? "OpenSM's plug-in has not connected in the " + silentMs / 1000 + " s since the"
                    + " daemon started (OpenSM not running, or without event_plugin_name fabricmanager and this socket)"
                    : "no keepalive from OpenSM's plug-in for " + silentMs / 1000 + " s (OpenSM stopped, frozen or hung)";
        } else if (last != null && last.madsOutstanding() != 0 && silentMs <= 2 * OpenSmWire.KEEPALIVE_MS
                && stuckMs >= STUCK_AFTER_MS) {
            // judged while the plug-in speaks: a silent one is the rule above's
            why = "OpenSM has had " + Integer.toUnsignedString(last.madsOutstanding()) + " SMPs outstanding for "
                    + stuckMs / 1000 + " s with none answered (its state manager is stuck)";
        }
        if (why != null && (state != State.LOST || returning)) {
            lastSignNanos = silentMs >= LOST_AFTER_MS ? now - TimeUnit.MILLISECONDS.toNanos(silentMs) : progressNanos;
            lost(why);
        } else if (why == null && keepaliveNanos >= 0 && state != State.UP && !returning) {
            up(now);
        }
    }

    private void lost(String why) {
        returning = false;
        state = State.LOST;
        sinceMillis = millis.getAsLong();
        lostWhy = why;
        losses.increment();
        String message = "OpenSM lost: " + why + "; the switches keep their tables, but nothing can change them until it"
                + " is back";
        LOG.error("{}", message);
        record(Milestone.Kind.OPENSM_LOST, message, Map.of("reason", why));
        listener.lost(why);
    }

    private void up(long now) {
        State was = state;
        long lostFor = millis.getAsLong() - sinceMillis;
        lostWhy = null; // the switches can be reached again: the confirmations below need it
        String sm = smState(last.smState());
        if (was == State.LOST) {
            long awayMs = TimeUnit.NANOSECONDS.toMillis(now - lastSignNanos);
            String how = "OpenSM back, " + awayMs / 1000 + " s after its last sign of life (SM state " + sm + "): the"
                    + " switches' tables are confirmed again";
            LOG.info("{}", how);
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("lostMs", lostFor);
            details.put("awayMs", awayMs);
            details.put("smState", sm);
            record(Milestone.Kind.OPENSM_BACK, how, details);
            listener.back(how);
            // UP once the switches' tables are pending again (the listener's events come first): never ready on
            // tables OpenSM has not confirmed since its return
            returning = true;
            loop.append("opensm up", () -> {
                if (returning) { // not lost again meanwhile
                    returning = false;
                    state = State.UP;
                    sinceMillis = millis.getAsLong();
                }
            });
        } else {
            state = State.UP;
            sinceMillis = millis.getAsLong();
            LOG.info("OpenSM's plug-in connected {} ms after the start (SM state {})",
                    TimeUnit.NANOSECONDS.toMillis(now - startNanos), sm);
            record(Milestone.Kind.OPENSM_EVENT, "OpenSM: its plug-in's channel is open (SM state " + sm + ")",
                    Map.of("smState", sm));
        }
    }

    private void record(Milestone.Kind kind, String message, Map<String, Object> details) {
        recorder.record(kind, message, details);
    }

    /** {@code GET /api/v1/status}'s {@code opensm}, or {@code null} without OpenSM (control thread). */
    public Views.OpenSm view() {
        if (!enabled) {
            return null;
        }
        long now = nanos.getAsLong();
        return new Views.OpenSm(state.name(), sinceMillis, lostWhy,
                keepaliveNanos < 0 ? null : TimeUnit.NANOSECONDS.toMillis(now - keepaliveNanos),
                last == null ? null : smState(last.smState()),
                last == null ? null : Integer.toUnsignedLong(last.madsOutstanding()), eventsDropped, countersDropped,
                (long) losses.count());
    }

    private static String smState(int state) {
        return state < SM_STATES.length ? SM_STATES[state] : "UNKNOWN(" + state + ")";
    }
}
