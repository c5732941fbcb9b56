package org.fabricmanager.daemon.faults;

import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongPredicate;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.routing.NodeImpact;
import org.fabricmanager.daemon.store.QuarantineStore;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.topology.Fabric;

/**
 * The daemon's reaction to faults beyond what the agents' reports say by themselves, as one manager the control loop
 * calls: it hands each call to the part whose job it is. {@link RingPlanner} plans the failure-detector ring,
 * {@link DetectorConfigurator} configures the agents' members, {@link VerdictJudge} judges the daemon member's
 * suspicions and verdicts (early echo, second opinion) and {@link FailedSwitches} acts on the confirmed ones,
 * {@link QuarantineKeeper} applies and keeps the flap quarantine; {@link ReactionTracker} keeps the figures of each
 * reaction. It reads the switch registry and acts on the rest of the daemon only through {@link FaultActions}, so the
 * control loop depends on it and not the other way round. Runs on the control thread, like all its parts.
 */
public final class FaultManager implements AutoCloseable {
    /** The ring, or {@code null} when the detector is disabled. */
    private final RingCoordinator ring;
    private final ReactionTracker reactions;
    private final UnreachableNodes unreachable;
    private final DetectorConfigurator configurator;
    private final FailedSwitches failed;
    private final VerdictJudge verdicts;
    private final RingPlanner planner;
    private final QuarantineKeeper quarantine;
    private final SwitchFlaps switchFlaps;
    private final BaselineCabling baseline = new BaselineCabling();
    /** Set once the daemon stops; every part reads it (control thread). */
    private boolean stopping;

    /**
     * A fault manager with the flap quarantine kept in {@code quarantine}: the ports it holds are quarantined from
     * the start, and every quarantine and release is written to it ({@code null}: kept nowhere, for tests).
     *
     * @param settings the fault settings; a reload re-tunes the flap knobs ({@link #retune}), the detector keeps its own
     * @param daemonId the daemon's own GUID in the ring
     * @throws StoreException when the stored quarantine is damaged
     */
    public FaultManager(DaemonConfig.Faults settings, long daemonId, FaultDependencies deps, QuarantineStore quarantine) {
        DaemonConfig.Detector detector = settings.detector();
        this.ring = detector.enabled() ? new RingCoordinator(detector, daemonId, deps.metrics().registry()) : null;
        this.reactions = new ReactionTracker(deps.milestones(), deps.metrics(), deps.nanoTime());
        this.unreachable = new UnreachableNodes(deps.milestones());
        BooleanSupplier stopped = () -> this.stopping;
        this.configurator = new DetectorConfigurator(ring, deps, stopped);
        this.failed = new FailedSwitches(deps, reactions);
        this.verdicts = new VerdictJudge(detector, daemonId, ring, deps, configurator, failed, stopped);
        this.planner = new RingPlanner(detector, ring, deps, configurator, verdicts, stopped);
        this.quarantine = new QuarantineKeeper(settings, deps, reactions, quarantine, stopped);
        this.switchFlaps = new SwitchFlaps(settings, deps);
    }

    /** The figures of fault reactions. */
    public ReactionTracker reactions() {
        return reactions;
    }

    /** The end nodes no route reaches any more. */
    public UnreachableNodes unreachable() {
        return unreachable;
    }

    /**
     * The impact on the end nodes of a routing installed while the reaction of {@code token} was open ({@link
     * ReactionTracker#impactPending}) came: it joins that reaction's figures, and the nodes it cut off or brought back
     * are announced ({@code NODE_UNREACHABLE}, {@code NODE_REACHABLE}).
     */
    public void routingImpact(Object token, NodeImpact impact) {
        reactions.impact(token, impact);
        unreachable.installed(impact);
    }

    /**
     * Verdicts on switches that are away in a management-network outage ({@code away}) are counted by
     * {@code counted} instead of announced one by one (their sessions are gone with the network, not the switches);
     * verdicts on switches whose lost session waits for its burst's judgement ({@code judging}) wait for it.
     */
    public void quietWhileAway(LongPredicate away, LongConsumer counted, LongPredicate judging) {
        failed.quietWhileAway(away, counted, judging);
    }

    /** The burst that lost the sessions of {@code lost} was judged: verdicts on them held meanwhile go on. */
    public void burstJudged(Iterable<Long> lost) {
        failed.burstJudged(lost);
    }

    /** A fault or recovery event that belongs to the current reaction. */
    public void event(String what) {
        reactions.event(what);
    }

    // ---- flap quarantine ---------------------------------------------------------------------------

    /**
     * Judges a port going up or down (after discovery): false when the change must not move the fabric
     * because the port is quarantined.
     */
    public boolean portTransition(ManagedSwitch ms, int port, boolean up) {
        return quarantine.portTransition(ms, port, up);
    }

    /**
     * A switch reported all its ports (PORT_INFO): its quarantined ports that are up start their stable-up clock, so
     * that a link back up through a reboot or reconnect is released like one reported up by PORT_STATUS.
     */
    public void portsReported(ManagedSwitch ms) {
        quarantine.portsReported(ms.ports());
    }

    /**
     * A port of {@code ms} went up or down before discovery completed, when no transition is judged: a quarantined
     * port's stable-up clock follows it all the same, else a link back up during discovery stayed quarantined for good.
     */
    public void portReportedBeforeDiscovery(ManagedSwitch ms, int port, boolean up) {
        quarantine.portReported(ms.guid(), port, up);
    }

    /** The reports as routing must see them: a copy with the quarantined ports down, or the reports themselves. */
    public SwitchPorts masked(SwitchPorts ports) {
        return quarantine.masked(ports);
    }

    /** The session of {@code ms} was lost: counted as a flap if it was in the fabric or waiting out its quarantine. */
    public void switchSessionLost(ManagedSwitch ms) {
        if (ms.admitted() || switchFlaps.isQuarantined(ms.guid())) {
            switchFlaps.sessionLost(ms.guid(), ms.name());
        }
    }

    /** An admitted switch's lost session, judged a fault with its burst (not a management outage): it counts. */
    public void switchSessionLost(long guid, String name) {
        switchFlaps.sessionLost(guid, name);
    }

    /**
     * Why {@code ms}, connecting, must wait before it enters the fabric because it flaps, or {@code null}; when it
     * must, {@code release} runs once its session has stayed up for the quarantine time ({@link SwitchFlaps}).
     */
    public String switchHeld(ManagedSwitch ms, Runnable release) {
        return switchFlaps.held(ms, release);
    }

    /** Quarantine state, for the views. */
    public FlapGuard flaps() {
        return quarantine.flaps();
    }

    // ---- ring failure detector ---------------------------------------------------------------------

    /**
     * The switches the daemon expects ({@code fabric.expectedPgft}, as its canonical numbering gives them): the ring is
     * planned over every one of them, those not connected yet in slots that start dead (docs/detector.md, "Slots for
     * switches that come late"). Call before the first plan; {@code null} leaves the ring to the connected switches.
     */
    public void expectSwitches(Fabric expected) {
        planner.expectSwitches(expected);
    }

    /** The ring, or {@code null} when the detector is disabled. */
    public RingCoordinator ring() {
        return ring;
    }

    /** A switch was admitted: a restarted agent of a ring member joins the running ring, without a new epoch. */
    public void switchAdmitted(ManagedSwitch ms) {
        configurator.switchAdmitted(ms);
    }

    /** An admitted switch's agent said where its member listens (after its PORT_INFO). */
    public void detectorEndpoint(ManagedSwitch ms) {
        configurator.detectorEndpoint(ms);
    }

    /**
     * The tables converged (every admitted switch acknowledged the routing in force). The first time, the ring is
     * planned over the newest fabric: routing a cold fabric comes first, the ring right after.
     */
    public void tablesConverged() {
        planner.tablesConverged();
    }

    /** {@code action} runs on the control thread whenever a ring epoch's start ends (every answer in, or its wait over). */
    public void onRingStarted(Runnable action) {
        configurator.onRingStarted(action);
    }

    /** True while a planned ring epoch still awaits some switch's answer to its configuration. */
    public boolean ringStarting() {
        return configurator.ringStarting();
    }

    /** The longest a ring's start can take ({@link DetectorConfigurator#ringStartWaitMs}). */
    public long ringStartWaitMs() {
        return configurator.ringStartWaitMs();
    }

    /** A switch's agent asks for ring members' addresses: answered from this epoch's directory. */
    public void detectorLookup(ManagedSwitch ms, Message.DetectorLookup lookup) {
        configurator.detectorLookup(ms, lookup);
    }

    /**
     * Plans the ring once the first routing's tables converged, and again when admitted switches the ring has no slot
     * for connected ({@link RingPlanner#planRing}).
     */
    public void planRing(Fabric fabric) {
        planner.planRing(fabric);
    }

    /** Switches the ring declared dead and that have not rejoined: GUID -> since (ms). */
    public Map<Long, Long> failedSwitches() {
        return failed.view();
    }

    /** The name a failed switch had when it was declared dead ("" when unknown). */
    public String failedName(long guid) {
        return failed.name(guid);
    }

    /** The verdicts' judge, for tests that play the daemon member's events. */
    VerdictJudge verdicts() {
        return verdicts;
    }

    /** The ring's planner, for tests that time replans. */
    RingPlanner planner() {
        return planner;
    }

    // ---- link names --------------------------------------------------------------------------------

    /** Remembers the first routed fabric's cabling, so that a down port can name the link it had. */
    public void rememberBaseline(Fabric fabric) {
        baseline.remember(fabric);
    }

    /** The first routed fabric ({@code null} before it): where the status page places switches that died since. */
    public Fabric baseline() {
        return baseline.fabric();
    }

    /** The peer GUID at (guid, port) in the first routed fabric (0: none). */
    public long baselinePeer(long guid, int port) {
        return baseline.peer(guid, port);
    }

    // ---- life cycle --------------------------------------------------------------------------------

    /** From now on, lost sessions are the daemon's own doing: the ring stops, quarantine timers are moot. */
    public void stopping() {
        stopping = true;
        close();
    }

    @Override
    public void close() {
        if (ring != null) {
            ring.close();
        }
        planner.close();
    }

    /** The flap knobs of a configuration reload (control thread); the detector keeps its own. */
    public void retune(DaemonConfig.Faults faults) {
        quarantine.retune(faults);
        switchFlaps.retune(faults);
    }
}
