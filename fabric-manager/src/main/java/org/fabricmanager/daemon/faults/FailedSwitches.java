package org.fabricmanager.daemon.faults;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import java.util.function.LongPredicate;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The switches the ring declared dead and that have not rejoined, and what the daemon does about them: a confirmed
 * verdict routes around the switch (its milestone, its fault count, its session dropped), and the switch's member
 * rejoining the ring recovers it. The {@link VerdictJudge} decides which verdicts come here. Runs on the control
 * thread.
 */
final class FailedSwitches {
    private static final Logger LOG = LoggerFactory.getLogger(FailedSwitches.class);

    private final FaultDependencies deps;
    private final ReactionTracker reactions;
    /** Switches the ring declared dead and that have not rejoined, with when. */
    private final Map<Long, Long> failedSwitches = new TreeMap<>(Long::compareUnsigned);
    private final Map<Long, String> failedNames = new HashMap<>();

    /** Switches away in a management-network outage, whose verdicts are counted there instead of announced. */
    private LongPredicate away = guid -> false;
    private LongConsumer countedAway = guid -> { };
    /** Switches whose lost session waits for its burst's judgement: outage or fault, their verdicts wait for it. */
    private LongPredicate judging = guid -> false;
    /** Verdicts held until the judgement of their switch's burst ({@link #burstJudged}). */
    private final Map<Long, Runnable> held = new HashMap<>();

    FailedSwitches(FaultDependencies deps, ReactionTracker reactions) {
        this.deps = deps;
        this.reactions = reactions;
    }

    /**
     * Acts on a confirmed verdict: the switch is out of the fabric until its member rejoins. {@code ms} is {@code null}
     * when its session is gone; {@code why} says what the daemon knows of the session, or is {@code null};
     * {@code echoWaitMs} is how long the second opinion waited for an echo (-1: no echo was asked), and
     * {@code echoBeforeVerdict} whether that echo was sent when the ring began suspecting the switch (its wait then
     * began before the verdict, and mostly overlaps the ring's own).
     *
     * <p>A verdict that comes after the session closed (the agent crashed and closed TCP, or a silent agent's session
     * reached the southbound idle timeout before the ring decided) finds the switch out of the fabric already: the
     * reaction to the session's loss has run or runs. Its {@code SWITCH_FAILED} milestone says so, in its message and
     * in its details ({@code routedAround: false}), so that nobody waits for a reaction to it.
     */
    void routeAround(long guid, long incarnation, ManagedSwitch ms, String why, int echoWaitMs,
                     boolean echoBeforeVerdict) {
        if (ms == null && judging.test(guid)) {
            // announced, or counted in an outage, once the burst of lost sessions it belongs to is judged
            held.put(guid, () -> routeAround(guid, incarnation, null, why, echoWaitMs, echoBeforeVerdict));
            return;
        }
        failedSwitches.put(guid, System.currentTimeMillis());
        String name = ms == null ? Guids.format(guid) : Guids.format(guid) + " (" + ms.name() + ")";
        if (ms != null) {
            failedNames.put(guid, ms.name());
        }
        if (ms == null && away.test(guid)) {
            // the management network is out: the ring hears nothing of the switches it cannot reach, one verdict a
            // second; the outage's milestones say how many, not one line each, and no reaction is joined
            LOG.debug("ring: switch {} declared dead while away in a management-network outage", name);
            countedAway.accept(guid);
            return;
        }
        if (ms != null) {
            reactions.event("ring: switch " + name + " failed");
        } else {
            // its session is already gone, and with it the switch from the fabric: nothing more to react to,
            // and a reaction opened here would stay open and absorb the next, unrelated fault's figures
            reactions.joinIfOpen("ring: switch " + name + " failed (no session left)");
        }
        deps.metrics().fault(DaemonMetrics.FaultType.SWITCH);
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("guid", Guids.format(guid));
        details.put("incarnation", incarnation);
        details.put("routedAround", ms != null);
        if (echoWaitMs >= 0) {
            details.put("echoWaitMs", echoWaitMs);
            details.put("echoBeforeVerdict", echoBeforeVerdict);
        }
        deps.milestones().record(Milestone.Kind.SWITCH_FAILED, "failure detector: switch " + name
                + " declared dead by the ring at incarnation " + incarnation + (ms == null
                ? "; its session had already closed and the switch left the fabric with it: nothing more to route around"
                : why == null ? "" : "; " + why + ": routing around it"), details);
        if (ms != null) {
            // the daemon cannot manage a switch whose agent the ring declared dead: drop the session
            deps.actions().dropSession(ms, "declared dead by the failure detector");
        }
    }

    /**
     * Verdicts on the switches {@code away} tests true for are counted by {@code counted}, not announced; those on
     * switches {@code judgingTest} tests true for wait for {@link #burstJudged}.
     */
    void quietWhileAway(LongPredicate awayTest, LongConsumer counted, LongPredicate judgingTest) {
        this.away = awayTest;
        this.countedAway = counted;
        this.judging = judgingTest;
    }

    /** The burst that lost {@code lost} was judged (an outage or faults): the verdicts held for it go on now. */
    void burstJudged(Iterable<Long> lost) {
        for (long guid : lost) {
            Runnable verdict = held.remove(guid);
            if (verdict != null) {
                verdict.run();
            }
        }
    }

    /** Switch {@code guid}'s member {@code member} is heard again at {@code incarnation}: recovered if it was dead. */
    void rejoined(long guid, int member, long incarnation) {
        if (failedSwitches.remove(guid) == null) {
            // a member that refuted a suspicion takes a higher incarnation without having been dead:
            // nothing was routed around, so nothing to recover
            LOG.debug("ring: member {} alive at incarnation {} (a refuted suspicion)", member, incarnation);
            return;
        }
        reactions.event("ring: switch " + Guids.format(guid) + " rejoined");
        deps.metrics().recovery(DaemonMetrics.FaultType.SWITCH);
        deps.actions().stateMayHaveChanged();
    }

    /** A new ring epoch: its members start alive. */
    void clear() {
        failedSwitches.clear();
    }

    /** Switches the ring declared dead and that have not rejoined: GUID -> since (ms). */
    Map<Long, Long> view() {
        return Collections.unmodifiableMap(failedSwitches);
    }

    /** The name a failed switch had when it was declared dead ("" when unknown). */
    String name(long guid) {
        return failedNames.getOrDefault(guid, "");
    }
}
