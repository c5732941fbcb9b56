package org.fabricmanager.daemon.opensm;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.api.Milestone;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OpenSM's events as the plug-in forwards them (traps, heavy sweeps, LFT blocks set, subnet up): each one counted in
 * {@code fabric.opensm.events{type}} (LFT blocks also in {@code fabric.opensm.lft.blocks}), and the ones an operator
 * reads (trap, heavy sweep done, LFT blocks set, subnet up) recorded as {@code OPENSM_EVENT} milestones. A local
 * process may send events as fast as it likes: milestones are rate-limited ({@value #BURST} at once, then one per
 * {@value #REFILL_MS} ms); the events left out are counted ({@code fabric.opensm.events.unrecorded}) and the next
 * milestone says how many. The plug-in's frames answered with REFUSED are counted by code ({@code fabric.opensm.refusals}).
 * Thread-safe (the provider's connection threads).
 */
public final class OpenSmEvents {
    private static final Logger LOG = LoggerFactory.getLogger(OpenSmEvents.class);
    /** Milestones recorded in a row before the rate limit applies. */
    static final int BURST = 20;
    /** One more milestone allowed per this many milliseconds. */
    static final long REFILL_MS = 1_000;

    /** Where a milestone goes: the daemon records it on its control thread. */
    @FunctionalInterface
    public interface Recorder {
        void record(Milestone.Kind kind, String message, Map<String, Object> details);
    }

    private enum Type {
        TRAP(OpenSmWire.EVENT_TRAP, true), SUBNET_UP(OpenSmWire.EVENT_SUBNET_UP, true),
        HEAVY_SWEEP_START(OpenSmWire.EVENT_HEAVY_SWEEP_START, false),
        HEAVY_SWEEP_DONE(OpenSmWire.EVENT_HEAVY_SWEEP_DONE, true),
        UCAST_ROUTING_DONE(OpenSmWire.EVENT_UCAST_ROUTING_DONE, false),
        STATE_CHANGE(OpenSmWire.EVENT_STATE_CHANGE, false), LFT_CHANGE(OpenSmWire.EVENT_LFT_CHANGE, true),
        OTHER(-1, false);

        final int id;
        final boolean milestone;

        Type(int id, boolean milestone) {
            this.id = id;
            this.milestone = milestone;
        }

        static Type of(int id) {
            for (Type t : values()) {
                if (t.id == id) {
                    return t;
                }
            }
            return OTHER; // one tag for every other id: a peer cannot grow the metric's tags
        }
    }

    private final Recorder recorder;
    private final LongSupplier clockMs;
    private final Map<Type, Counter> counters = new LinkedHashMap<>();
    private final Counter blocks;
    private final Counter unrecorded;
    private final Counter tablesSet;
    private final Map<Refusal, Counter> refusals = new EnumMap<>(Refusal.class);
    private double tokens = BURST;
    private long refilledAt;
    private long skipped;

    public OpenSmEvents(MeterRegistry registry, Recorder recorder, LongSupplier clockMs) {
        this.recorder = recorder;
        this.clockMs = clockMs;
        this.refilledAt = clockMs.getAsLong();
        for (Type t : Type.values()) {
            counters.put(t, Counter.builder("fabric.opensm.events").tag("type", t.name().toLowerCase())
                    .description("events OpenSM's plug-in forwarded").register(registry));
        }
        blocks = Counter.builder("fabric.opensm.lft.blocks").description("LFT blocks OpenSM set on the switches")
                .register(registry);
        tablesSet = Counter.builder("fabric.opensm.events").tag("type", "tables_set")
                .description("events OpenSM's plug-in forwarded").register(registry);
        for (Refusal r : Refusal.values()) {
            refusals.put(r, Counter.builder("fabric.opensm.refusals").tag("code", r.name().toLowerCase())
                    .description("frames of OpenSM's plug-in answered with REFUSED, by code").register(registry));
        }
        unrecorded = Counter.builder("fabric.opensm.events.unrecorded")
                .description("OpenSM events left out of the milestones by their rate limit").register(registry);
    }

    /** Counts {@code e} and records its milestone when it has one and the rate limit allows. */
    public void accept(OpenSmWire.Event e) {
        Type type = Type.of(e.id());
        counters.get(type).increment();
        if (type == Type.LFT_CHANGE) {
            blocks.increment(lftBlocks(e.detail()));
        }
        if (!type.milestone) {
            LOG.debug("OpenSM: event {} (detail {})", e.id(), e.detail());
            return;
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("event", type.name());
        details.put("subnet", e.answeredSeq());
        String message = switch (type) {
            case TRAP -> {
                details.put("trap", e.detail());
                yield "OpenSM: trap " + e.detail() + " received";
            }
            case SUBNET_UP -> "OpenSM: subnet up" + (e.answeredSeq() != 0 ? " with this daemon's tables of subnet "
                    + e.answeredSeq() : " (its last routing was not this daemon's)");
            case HEAVY_SWEEP_DONE -> "OpenSM: heavy sweep done";
            default -> {
                details.put("blocks", lftBlocks(e.detail()));
                details.put("uploadMs", lftSpanMs(e.detail()));
                yield "OpenSM: " + lftBlocks(e.detail()) + " LFT blocks set on the switches in " + lftSpanMs(e.detail())
                        + " ms";
            }
        };
        record(message, details);
    }

    /**
     * OpenSM's word after pass {@code set.seq()}: {@code held} of the {@code answered} switches that pass carried
     * tables for hold them. Recorded for every pass the daemon answered, the first after OpenSM's start included
     * (whose blocks OpenSM reports no LFT_CHANGE for).
     */
    public void tablesSet(OpenSmWire.TablesSet set, int held, int answered) {
        tablesSet.increment();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("event", "TABLES_SET");
        details.put("subnet", set.seq());
        details.put("held", held);
        details.put("answered", answered);
        String message = "OpenSM: the daemon's tables of subnet " + set.seq() + " set on " + held + " of " + answered
                + " switches" + (held < answered ? " (the others are retried)" : "");
        if (held < answered) {
            LOG.warn("{}", message);
        }
        record(message, details);
    }

    /** A frame of the plug-in answered with REFUSED {@code why}: counted. */
    public void refusal(Refusal why) {
        refusals.get(why).increment();
    }

    /** A SUBNET refused because it names switches that agents manage: logged and recorded, within the rate limit. */
    public void refused(String why) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("event", "SUBNET_REFUSED");
        if (record("OpenSM: " + why, details)) {
            LOG.warn("{}", why);
        }
    }

    /** Records a milestone when the rate limit allows; false when it was left out. */
    private boolean record(String message, Map<String, Object> details) {
        long left;
        synchronized (this) {
            long now = clockMs.getAsLong();
            tokens = Math.min(BURST, tokens + (double) Math.max(0, now - refilledAt) / REFILL_MS);
            refilledAt = now;
            if (tokens < 1) {
                skipped++;
                unrecorded.increment();
                return false;
            }
            tokens--;
            left = skipped;
            skipped = 0;
        }
        if (left > 0) {
            details.put("unrecordedBefore", left);
            message += " (" + left + " OpenSM events before it not recorded: rate limit)";
        }
        recorder.record(Milestone.Kind.OPENSM_EVENT, message, details);
        return true;
    }

    /** An LFT_CHANGE's block count (its detail's low 32 bits). */
    static long lftBlocks(long detail) {
        return detail & 0xffffffffL;
    }

    /** An LFT_CHANGE's milliseconds from the first block set to the last (its detail's high 32 bits). */
    static long lftSpanMs(long detail) {
        return detail >>> 32;
    }
}
