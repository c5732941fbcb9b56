package org.fabricmanager.daemon;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.faults.FaultManager;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.topology.Guids;

/**
 * Sessions of admitted switches lost close together (not those the daemon itself ends: a takeover by a restarted
 * agent, a confirmed verdict of the failure detector), judged once their burst ends (one keepalive period after the
 * first loss). At least {@value #OUTAGE_MIN_SESSIONS} sessions lost in one burst while no connected switch reports a
 * port down towards any of them is a management-network outage: the switches kept forwarding with the tables they
 * hold, so it is one {@code MANAGEMENT_OUTAGE} milestone, no fault reaction and no re-route, and their return is one
 * milestone too (they get nothing when they still hold the tables in force). Fewer losses, or losses beside a port down
 * towards one of them (a switch that lost power), are switch faults as before: a {@code SWITCH_LOST} milestone each (a
 * burst of many is one milestone) and a re-route. The re-route of a loss waits for its burst's end. Control thread.
 */
final class SessionLosses {
    /** Deferred-event tag of a burst's end. */
    static final String BURST = "session-losses";
    /** Sessions lost in one burst, with no port down towards them, that make an outage of the management network. */
    static final int OUTAGE_MIN_SESSIONS = 3;
    /** Switches named in an aggregated milestone. */
    private static final int NAMED = 5;

    /** What the coordinator does once a burst is judged. */
    interface Outcome {
        /** The losses were switch faults: route around the switches (their reaction is open since the first loss). */
        void switchesLost();

        /** The losses were a management-network outage: keep the tables in force, route nothing, close the reaction. */
        void managementOutage();
    }

    private final ControlLoop queue;
    private final MilestoneLog milestones;
    private final SwitchRegistry registry;
    private final FaultManager faults;
    private final long windowMs;
    private Outcome outcome;
    /** The burst being gathered: GUID -> "GUID (name)", in the order of the losses. */
    private final Map<Long, String> burst = new LinkedHashMap<>();
    /** The burst's switches' names, for what a fault's loss tells the flap damping. */
    private final Map<Long, String> burstSwitchNames = new HashMap<>();
    private String firstReason;
    private int connectedBefore;
    private long burstStartNanos;
    /** Switches lost in an outage that have not come back, and the outage's figures. */
    private final Set<Long> away = new HashSet<>();
    private int outageSize;
    private long outageStartNanos;
    private int declaredDeadAway;

    /** @param windowMs how long after the first loss of a burst the others still join it (a keepalive period) */
    SessionLosses(ControlLoop queue, MilestoneLog milestones, SwitchRegistry registry, FaultManager faults, long windowMs) {
        this.queue = queue;
        this.milestones = milestones;
        this.registry = registry;
        this.faults = faults;
        this.windowMs = windowMs;
    }

    /** Where judged bursts go (the coordinator; set once, before the first loss). */
    void outcome(Outcome o) {
        this.outcome = o;
    }

    /** Admitted switch {@code ms} lost its session after discovery ({@code connectedBefore}: admitted, it included). */
    void lost(ManagedSwitch ms, String reason, int connectedBefore) {
        if (burst.isEmpty()) {
            firstReason = reason;
            this.connectedBefore = connectedBefore;
            burstStartNanos = System.nanoTime();
            queue.scheduleDeferred(BURST, windowMs, this::judge);
        }
        burst.put(ms.guid(), Guids.format(ms.guid()) + " (" + ms.name() + ")");
        burstSwitchNames.put(ms.guid(), ms.name());
    }

    /**
     * True while a burst of losses is gathered (its judgement, then maybe a re-route, is still to come) that holds a
     * switch {@code routedAround} does not accept: a loss whose judgement may change the routes of traffic. A switch
     * the routing in force already routes around (no link left in its fabric) changes no route, whether its loss is
     * judged a fault or an outage.
     */
    boolean judging(LongPredicate routedAround) {
        for (long guid : burst.keySet()) {
            if (!routedAround.test(guid)) {
                return true;
            }
        }
        return false;
    }

    /** True when switch {@code guid} lost its session in an outage. */
    boolean away(long guid) {
        return away.contains(guid);
    }

    /** True when switch {@code guid} lost its session in the burst being gathered (not judged yet). */
    boolean inBurst(long guid) {
        return burst.containsKey(guid);
    }

    /** The ring declared switch {@code guid} dead while it was away in an outage: counted, not announced per switch. */
    void declaredDeadWhileAway(long guid) {
        declaredDeadAway++;
    }

    /**
     * Switch {@code ms} was admitted again.
     *
     * @return true when it was away in an outage: its return is part of the outage's, announced once for all
     */
    boolean back(ManagedSwitch ms) {
        if (burst.remove(ms.guid()) != null) {
            return false; // back before its burst was judged: a blip, its connection announced as any other
        }
        if (!away.remove(ms.guid())) {
            return false;
        }
        if (away.isEmpty()) {
            milestones.record(Milestone.Kind.MANAGEMENT_OUTAGE, String.format("management network: the %d switches "
                    + "that lost their sessions are all back, %.1f s after the outage began%s; nothing was re-routed for "
                    + "them", outageSize, (System.nanoTime() - outageStartNanos) / 1e9, declaredDeadAway == 0 ? ""
                    : " (the failure detector declared " + declaredDeadAway + " of them dead meanwhile)"),
                    Map.of("switches", outageSize, "back", true));
            outageSize = 0;
            declaredDeadAway = 0;
        }
        return true;
    }

    /** The burst's end: an outage of the management network, or switch faults. */
    private void judge() {
        if (burst.isEmpty()) {
            return;
        }
        List<String> names = new ArrayList<>(burst.values());
        Map<Long, String> burstNames = new LinkedHashMap<>(burst);
        Map<Long, String> switchNames = new HashMap<>(burstSwitchNames);
        Set<Long> lost = burstNames.keySet();
        burst.clear();
        burstSwitchNames.clear();
        double spanMs = (System.nanoTime() - burstStartNanos) / 1e6;
        String towards = lost.size() >= OUTAGE_MIN_SESSIONS ? portDownTowards(lost) : null;
        if (lost.size() >= OUTAGE_MIN_SESSIONS && towards == null) {
            if (away.isEmpty()) {
                outageStartNanos = burstStartNanos;
            }
            away.addAll(lost);
            outageSize += lost.size();
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("switches", lost.size());
            details.put("connectedBefore", connectedBefore);
            details.put("back", false);
            milestones.record(Milestone.Kind.MANAGEMENT_OUTAGE, String.format("management network outage: %d of %d "
                    + "switches lost their sessions within %.0f ms (%s; first: %s) and no connected switch reports a "
                    + "port down towards them: they keep forwarding with the tables they hold; tables kept, nothing "
                    + "re-routed", lost.size(), connectedBefore, spanMs, named(names), firstReason), details);
            faults.burstJudged(lost);
            outcome.managementOutage();
            return;
        }
        for (long guid : lost) {
            // the fault reaction starts now: the wait for the burst's end was the daemon's choice, not the fabric's
            faults.event("switch " + burstNames.get(guid) + " disconnected");
            // a fault, so it counts toward the switch's flapping; an outage's losses do not (the management network
            // flapping must not hold every switch out of the fabric)
            faults.switchSessionLost(guid, switchNames.get(guid));
        }
        // verdicts the ring reached on them meanwhile join the reaction their losses opened
        faults.burstJudged(lost);
        if (names.size() == 1) {
            milestones.record(Milestone.Kind.SWITCH_LOST, "switch " + names.get(0) + " disconnected: " + firstReason);
        } else {
            milestones.record(Milestone.Kind.SWITCH_LOST, String.format("%d switches disconnected within %.0f ms (%s; "
                    + "first: %s)%s", names.size(), spanMs, named(names), firstReason,
                    towards == null ? "" : "; " + towards + ": routing around them"));
        }
        outcome.switchesLost();
    }

    /** A connected switch's port down whose link led to one of {@code lost} (they lost power, not their network). */
    private String portDownTowards(Set<Long> lost) {
        for (ManagedSwitch ms : registry.all()) {
            if (!ms.admitted()) {
                continue;
            }
            for (int p = 1; p <= ms.ports().portCount(); p++) {
                if (!ms.ports().port(p).isUp() && lost.contains(faults.baselinePeer(ms.guid(), p))) {
                    return "port " + p + " of " + ms.name() + " towards " + Guids.format(faults.baselinePeer(ms.guid(), p))
                            + " is down";
                }
            }
        }
        return null;
    }

    private static String named(List<String> names) {
        return names.size() <= NAMED ? String.join(", ", names)
                : String.join(", ", names.subList(0, NAMED)) + " and " + (names.size() - NAMED) + " more";
    }

    /** Stops judging (the daemon stops: its own closes are no outage). */
    void cancel() {
        queue.cancelDeferred(BURST);
        burst.clear();
        burstSwitchNames.clear();
    }
}
