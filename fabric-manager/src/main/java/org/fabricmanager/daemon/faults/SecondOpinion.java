package org.fabricmanager.daemon.faults;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lifeguard's "second opinion before acting", at the daemon: the ring's verdict that a switch is dead comes from
 * one observer, which may itself be the one that is late; before routing around the switch the daemon asks the
 * switch's own session for a fresh sign of life (an echo sent after the verdict). An answer within
 * {@code faults.detector.secondOpinionMs} of the verdict refutes it; silence for that long, or the session closing,
 * confirms it. The wait is the configured one, whatever the session's round trips: an agent whose process is starved
 * (a loaded host, a stalled switch CPU) answers nothing, keepalives included, until it runs again, so its last round
 * trip says nothing about how long that takes. This class keeps the checks under way (at most
 * one per switch), decides which answer still counts, counts the outcomes ({@value #VERDICTS} with tag
 * {@code outcome}) and logs refutations at most once per {@link #LOG_INTERVAL_NANOS}. Control thread only.
 */
final class SecondOpinion {
    private static final Logger LOG = LoggerFactory.getLogger(SecondOpinion.class);
    /** Counter with tag {@code outcome} ({@code confirmed}, {@code refuted}): ring verdicts the daemon judged. */
    static final String VERDICTS = "fabric.detector.verdicts";
    static final long LOG_INTERVAL_NANOS = 10_000_000_000L;

    /** What became of a verdict. */
    enum Outcome {
        /** The daemon acts on it: the switch's session did not answer in time, closed, or was not asked. */
        CONFIRMED,
        /** The switch answered after the verdict (or its member rejoined the ring meanwhile): nothing is re-routed. */
        REFUTED;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A verdict under check: the ring declared switch {@code guid} (member {@code member}) dead at
     * {@code incarnation}; {@code session} is the session that was asked.
     */
    record Check(long guid, int member, long incarnation, SwitchSession session) {
    }

    /**
     * How long after a refuted verdict the daemon stops preparing routings during second opinions: a ring that has
     * just accused a live switch is likely to do it again (an overloaded host), and a routing computed for each false
     * verdict would add to the load that causes them.
     */
    static final long PREPARE_AFTER_REFUTATION_NANOS = 30_000_000_000L;

    private final Map<Long, Check> pending = new HashMap<>();
    private long lastRefutedNanos;
    private boolean refutedOnce;
    private final Map<Outcome, Counter> outcomes = new EnumMap<>(Outcome.class);
    private final LongSupplier nanoTime;
    private long lastLogNanos;
    private boolean logged;
    private long suppressed;

    SecondOpinion(MeterRegistry registry, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        for (Outcome o : Outcome.values()) {
            outcomes.put(o, Counter.builder(VERDICTS).tag("outcome", o.tag())
                    .description("ring verdicts that a switch is dead, by what the daemon made of them").register(registry));
        }
    }

    /** Starts checking {@code check}; false when a check of that switch is already under way (it decides). */
    boolean begin(Check check) {
        return pending.putIfAbsent(check.guid(), check) == null;
    }

    /** The check of switch {@code guid} under way, or {@code null}. */
    Check pendingFor(long guid) {
        return pending.get(guid);
    }

    /**
     * Ends {@code check} with {@code outcome} and counts it; false (and nothing counted) when it no longer counts:
     * already decided, or dropped by a new epoch.
     */
    boolean decide(Check check, Outcome outcome) {
        if (!pending.remove(check.guid(), check)) {
            return false;
        }
        count(outcome);
        if (outcome == Outcome.REFUTED) {
            refutedOnce = true;
            lastRefutedNanos = nanoTime.getAsLong();
        }
        return true;
    }

    /** Counts a verdict decided without a check (no session to ask, or second opinions off). */
    void count(Outcome outcome) {
        outcomes.get(outcome).increment();
    }

    /** A new ring epoch: verdicts of the previous one mean nothing now. */
    void clear() {
        pending.clear();
    }

    /**
     * Whether a verdict's routing is worth computing during its check: no verdict was refuted in the last
     * {@link #PREPARE_AFTER_REFUTATION_NANOS} (a quiet ring's verdicts are real deaths).
     */
    boolean worthPreparing() {
        return !refutedOnce || nanoTime.getAsLong() - lastRefutedNanos >= PREPARE_AFTER_REFUTATION_NANOS;
    }

    /** Checks under way. */
    int pending() {
        return pending.size();
    }

    /**
     * Logs a refutation: at warn once per {@link #LOG_INTERVAL_NANOS}, with how many went unlogged since (a ring on
     * an overloaded host can refute many verdicts in a burst; each is counted in the meter anyway).
     */
    void logRefuted(Check check, String name, String evidence) {
        long now = nanoTime.getAsLong();
        if (logged && now - lastLogNanos < LOG_INTERVAL_NANOS) {
            suppressed++;
            LOG.debug("failure detector: verdict on switch {} ({}) refuted: {}", Guids.format(check.guid()), name, evidence);
            return;
        }
        LOG.warn("failure detector: the ring declared switch {} ({}) dead at incarnation {}, but {}: verdict refuted, "
                        + "nothing re-routed{}", Guids.format(check.guid()), name, check.incarnation(), evidence,
                suppressed == 0 ? "" : " (" + suppressed + " more refuted since the last such line)");
        logged = true;
        lastLogNanos = now;
        suppressed = 0;
    }
}
