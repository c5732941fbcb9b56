package org.fabricmanager.daemon.faults;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.topology.Fabric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when the failure-detector ring is planned and over which switches: the first time once the first tables
 * converged (or {@link #FIRST_PUSH_WAIT_MS} after the first routing), again when admitted switches the ring has no slot
 * for connected, at most once per {@link #replanIntervalMs} (a deferred event batches them). A plan orders the
 * connected switches and the slots {@link RingSlots} gives, starts the epoch on the {@link RingCoordinator}, resets the
 * verdicts under way and has the {@link DetectorConfigurator} configure the members. Runs on the control thread; does
 * nothing when the detector is disabled ({@code ring} {@code null}).
 */
final class RingPlanner {
    private static final Logger LOG = LoggerFactory.getLogger(RingPlanner.class);
    static final String REPLAN = "detector-replan";
    static final String FIRST_PLAN = "detector-first-plan";
    /** How long the first ring waits for the first push to converge before it starts anyway. */
    static final long FIRST_PUSH_WAIT_MS = 30_000;

    private final DaemonConfig.Detector settings;
    private final RingCoordinator ring;
    private final FaultDependencies deps;
    private final RingSlots slots;
    private final DetectorConfigurator configurator;
    private final VerdictJudge verdicts;
    /** The newest fabric {@link #planRing} was given: what a replan deferred by {@link #replanIntervalMs} plans. */
    private Fabric latestFabric;
    /** When the current epoch was planned (the dependencies' clock), to batch replans. */
    private long plannedAtNanos;
    private boolean replanScheduled;
    /**
     * Whether the first ring may be planned: once the first tables converged, or {@link #FIRST_PUSH_WAIT_MS} after
     * the first routing. Until then the agents take their tables without starting members and asking for their
     * peers' addresses at the same moment (5,120 members ask for about 130,000 addresses as they start).
     */
    private boolean firstTablesInPlace;
    private boolean firstPlanScheduled;
    /** Whether the daemon is stopping: from then on, lost sessions are its own doing (FaultManager#stopping). */
    private final BooleanSupplier stopping;

    RingPlanner(DaemonConfig.Detector settings, RingCoordinator ring, FaultDependencies deps,
                DetectorConfigurator configurator, VerdictJudge verdicts, BooleanSupplier stopping) {
        this.stopping = stopping;
        this.settings = settings;
        this.ring = ring;
        this.deps = deps;
        this.slots = new RingSlots(deps.registry());
        this.configurator = configurator;
        this.verdicts = verdicts;
    }

    /**
     * The switches the daemon expects: the ring is planned over every one of them, those not connected yet in slots
     * that start dead. Call before the first plan; {@code null} leaves the ring to the connected switches.
     */
    void expectSwitches(Fabric expected) {
        slots.expect(ring == null ? null : expected);
    }

    /**
     * How long after a plan the next one waits: a switch the ring has no slot for (a GUID outside the expected
     * fabric) needs a new epoch, which restarts every member; a stream of such switches (a pod being cabled) costs
     * one restart per interval, not one per switch.
     */
    long replanIntervalMs() {
        return Math.max(5_000L, 10L * settings.deltaMs());
    }

    /**
     * The tables converged (every admitted switch acknowledged the routing in force). The first time, the ring is
     * planned over the newest fabric: routing a cold fabric comes first, the ring right after.
     */
    void tablesConverged() {
        if (firstTablesInPlace) {
            return;
        }
        firstTablesInPlace = true;
        if (firstPlanScheduled) {
            deps.queue().cancelDeferred(FIRST_PLAN);
        }
        if (latestFabric != null && !stopping.getAsBoolean()) {
            planRing(latestFabric);
        }
    }

    /**
     * Plans the ring once the first routing's tables converged ({@link #tablesConverged}, or {@link #FIRST_PUSH_WAIT_MS}
     * after the first routing), and again when admitted switches the ring has no slot for connected (at most
     * once per {@link #replanIntervalMs}: later ones wait for the same replan). A switch that has a slot (it was
     * expected, and connected late or not at all) joins the running epoch instead.
     */
    void planRing(Fabric fabric) {
        if (ring == null || fabric.switches().isEmpty()) {
            return;
        }
        latestFabric = fabric;
        if (!ring.active() && !firstTablesInPlace) {
            scheduleFirstPlan();
            return; // planned when the first tables are in place (tablesConverged)
        }
        if (ring.active() && !hasSwitchOutside()) {
            return;
        }
        if (ring.active()) {
            long sinceMs = (deps.nanoTime().getAsLong() - plannedAtNanos) / 1_000_000L;
            if (sinceMs < replanIntervalMs()) {
                scheduleReplan(replanIntervalMs() - sinceMs);
                return;
            }
        }
        if (replanScheduled) {
            deps.queue().cancelDeferred(REPLAN);
            replanScheduled = false;
        }
        plan(fabric);
    }

    /** Starts the first ring {@link #FIRST_PUSH_WAIT_MS} after the first routing if the tables have not converged. */
    private void scheduleFirstPlan() {
        if (firstPlanScheduled) {
            return;
        }
        firstPlanScheduled = true;
        deps.queue().scheduleDeferred(FIRST_PLAN, FIRST_PUSH_WAIT_MS, () -> {
            if (!stopping.getAsBoolean() && !firstTablesInPlace) {
                LOG.warn("failure detector: the first tables have not converged {} ms after the first routing; "
                        + "the ring starts anyway", FIRST_PUSH_WAIT_MS);
                tablesConverged();
            }
        });
    }

    /** Whether an admitted switch is outside the running epoch and not left out of it on purpose. */
    private boolean hasSwitchOutside() {
        for (ManagedSwitch ms : deps.registry().all()) {
            // a switch this epoch left out on purpose (its endpoint is another member's) does not replan the ring
            // each time it connects: a new epoch would leave it out again, at the cost of every agent's restart
            if (ms.admitted() && !ring.contains(ms.guid()) && !ring.leftOut(ms.guid())) {
                return true;
            }
        }
        return false;
    }

    /** One replan in {@code delayMs} for every switch without a slot that connects meanwhile. */
    private void scheduleReplan(long delayMs) {
        if (replanScheduled) {
            return;
        }
        replanScheduled = true;
        LOG.info("failure detector: a switch the ring has no slot for connected; the ring is planned again "
                + "in {} ms (epoch {} runs until then, one replan for every such switch meanwhile)", delayMs, ring.epoch());
        deps.queue().scheduleDeferred(REPLAN, delayMs, () -> {
            replanScheduled = false;
            if (!stopping.getAsBoolean()) {
                planRing(latestFabric);
            }
        });
    }

    /** Plans a new epoch over the connected switches and the slots, and configures its members. */
    private void plan(Fabric fabric) {
        List<Long> slotted = slots.order(fabric);
        List<Long> order = new ArrayList<>();
        Map<Long, InetSocketAddress> endpoints = new HashMap<>();
        Set<Long> vacant = new HashSet<>();
        for (long guid : slotted != null ? slotted : RingOrder.of(fabric)) {
            ManagedSwitch ms = deps.registry().get(guid);
            if (ms != null && ms.admitted() && !ms.session().capabilities().failureDetector()) {
                continue; // runs no member (OpenSM's switches): not in the ring
            }
            if (ms != null && ms.admitted() && ms.session().remoteAddress() instanceof InetSocketAddress a) {
                order.add(guid);
                // the endpoint the agent advertised; else, for an agent that never says (no detector window), its
                // session's address and the configured agent port; one that will say gets a placeholder until then
                if (ms.detectorEndpoint() != null) {
                    endpoints.put(guid, ms.detectorEndpoint());
                } else if (!ms.session().hello().supportsDetectorWindow()) {
                    endpoints.put(guid, new InetSocketAddress(a.getAddress(), settings.agentPort()));
                }
            } else if (slotted != null && (ms == null || !ms.admitted())) {
                // expected, not connected (or not admitted) yet: a slot that starts dead, which it joins when it comes
                order.add(guid);
                vacant.add(guid);
            }
        }
        if (order.size() == vacant.size()) {
            return;
        }
        List<Long> members;
        try {
            members = ring.plan(order, endpoints, vacant,
                    event -> deps.queue().append("detector " + event, () -> verdicts.onDetectorEvent(event)));
        } catch (RuntimeException e) {
            // a detector that cannot start must not stop routing: faults still arrive by sessions and PORT_STATUS
            LOG.error("failure detector: ring epoch {} not started ({}); routing goes on, faults are seen through "
                    + "the agents' sessions and port reports only", ring.epoch(), e.getMessage());
            return;
        }
        verdicts.newEpoch();
        for (long guid : members) {
            ManagedSwitch ms = deps.registry().get(guid);
            // An agent that takes a window advertises its endpoint right after its PORT_INFO; one whose endpoint is
            // not here yet gets its window when it comes (detectorEndpoint, still BOOTSTRAP), not now with the guessed
            // address: its member would bind that, be heard there by its observer, and then move, and the observer,
            // told the new address before the restarted member ran, declared it dead (a cold-start false death)
            if (ms.session().hello().supportsDetectorWindow() && ms.detectorEndpoint() == null) {
                continue;
            }
            configurator.send(ms, false);
        }
        plannedAtNanos = deps.nanoTime().getAsLong();
        LOG.info("failure detector: ring epoch {} of {} members (the daemon and {} switches{}), eta {} ms, delta {} ms",
                ring.epoch(), ring.size(), order.size(), vacant.isEmpty() ? "" : ", " + vacant.size()
                        + " of them slots for expected switches not connected yet, which join this epoch when they come",
                settings.etaMs(), settings.deltaMs());
    }


    /** Cancels a deferred replan (the ring is closing). */
    void close() {
        if (replanScheduled) {
            deps.queue().cancelDeferred(REPLAN);
            replanScheduled = false;
        }
    }
}
