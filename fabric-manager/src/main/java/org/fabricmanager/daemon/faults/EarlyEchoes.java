package org.fabricmanager.daemon.faults;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.fabricmanager.southbound.SwitchSession;

/**
 * The second opinion started half a δ early. A ring member that begins suspecting its emitter (δ/2 of silence) tells
 * the daemon's member, the ring's witness; the daemon then sends the suspect's session an echo at once, instead of
 * after the verdict. A verdict that comes while the echo is unanswered sends no second one: it is confirmed once
 * the echo has gone unanswered for the second opinion's whole wait after the verdict, as an echo sent then would be
 * (silence until the verdict is no evidence beyond the ring's: a starved agent is silent on both from the same
 * moment). An echo unanswered for the wait lets the daemon compute the routing without the suspect, and stage its
 * blocks, before the verdict. An answer, at any time, proves only that the agent lives: the verdict, if one comes,
 * gets its usual check, an echo sent after it.
 *
 * <p>This class keeps the echoes under way (at most one per switch, so a member repeating notices costs nothing) and
 * counts what became of them ({@value #NOTICES}, tag {@code outcome}: {@code answered}, {@code silent}). Control thread
 * only.
 */
final class EarlyEchoes {
    /** Counter with tag {@code outcome}: suspicions the ring told the daemon of, by what the suspect's echo showed. */
    static final String NOTICES = "fabric.detector.notices";

    /** One echo under way: to the session of switch {@code guid}, suspected at {@code incarnation}. */
    static final class Echo {
        final long guid;
        final long incarnation;
        final SwitchSession session;
        final long sentNanos;
        /** Unanswered for the whole second-opinion wait. */
        boolean silent;
        /** The routing without the switch was asked for because of this echo. */
        boolean prepared;
        /** A verdict that came before the wait was over and waits for the rest of it, or {@code null}. */
        SecondOpinion.Check check;

        Echo(long guid, long incarnation, SwitchSession session, long sentNanos) {
            this.guid = guid;
            this.incarnation = incarnation;
            this.session = session;
            this.sentNanos = sentNanos;
        }
    }

    private final Map<Long, Echo> byGuid = new HashMap<>();
    /**
     * When an echo to each switch last began: one ring member can notice its emitter only once per silence, and a
     * new silence takes at least half a δ, so a member repeating notices (a bug, or a compromised agent that holds the
     * ring key) gets at most one echo to its emitter per half δ, not one per datagram. One entry per ring member.
     */
    private final Map<Long, Long> lastBeganNanos = new HashMap<>();
    private final LongSupplier nanoTime;
    private final Counter answered;
    private final Counter silent;

    EarlyEchoes(MeterRegistry registry, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.answered = counter(registry, "answered");
        this.silent = counter(registry, "silent");
    }

    private static Counter counter(MeterRegistry registry, String outcome) {
        return Counter.builder(NOTICES).tag("outcome", outcome)
                .description("suspicions the ring told the daemon of, by whether the suspect's agent answered an echo")
                .register(registry);
    }

    /**
     * Starts an echo to {@code session}, now; {@code null} when one to that switch is under way already, or began
     * less than {@code minIntervalMs} ago.
     */
    Echo begin(long guid, long incarnation, SwitchSession session, long minIntervalMs) {
        long now = nanoTime.getAsLong();
        Long last = lastBeganNanos.get(guid);
        if (byGuid.containsKey(guid) || last != null && now - last < minIntervalMs * 1_000_000L) {
            return null;
        }
        Echo e = new Echo(guid, incarnation, session, now);
        byGuid.put(guid, e);
        lastBeganNanos.put(guid, now);
        return e;
    }

    /** The echo to switch {@code guid} under way, or {@code null}. */
    Echo get(long guid) {
        return byGuid.get(guid);
    }

    /** Whether {@code e} is still under way (not ended, not dropped by a new epoch). */
    boolean current(Echo e) {
        return byGuid.get(e.guid) == e;
    }

    /** {@code e} went unanswered for the whole wait: counted once. */
    void silent(Echo e) {
        if (current(e) && !e.silent) {
            e.silent = true;
            silent.increment();
        }
    }

    /** Ends {@code e} because its switch answered; false when it no longer counted. */
    boolean answered(Echo e) {
        if (!end(e)) {
            return false;
        }
        answered.increment();
        return true;
    }

    /** Ends {@code e} (a verdict took it, or its echo failed); false when it no longer counted. */
    boolean end(Echo e) {
        return byGuid.remove(e.guid, e);
    }

    /** Milliseconds since {@code e} was sent. */
    long ageMs(Echo e) {
        return (nanoTime.getAsLong() - e.sentNanos) / 1_000_000L;
    }

    /**
     * Whether {@code e} may stand for the second opinion on a verdict on {@code session}'s switch at
     * {@code incarnation}: the same session (a reconnected agent is another run) and incarnation (a refutation since
     * is a sign of life after the echo was sent).
     */
    static boolean matches(Echo e, SwitchSession session, long incarnation) {
        return e.session == session && e.incarnation == incarnation;
    }

    /** A new ring epoch: its suspicions mean nothing now (its members may be others). */
    void clear() {
        byGuid.clear();
        lastBeganNanos.clear();
    }
}
