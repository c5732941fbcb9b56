package org.fabricmanager.daemon;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.discovery.DiscoveryManager;
import org.fabricmanager.daemon.discovery.TopologyBuilder;
import org.fabricmanager.daemon.faults.FaultActions;
import org.fabricmanager.daemon.faults.FaultManager;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.push.PushRound;
import org.fabricmanager.daemon.push.RoutedAround;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.registry.AdmissionPolicy;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.NodeImpact;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.topology.Fabric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control loop's sequence: once discovery settles, every change of the fabric (from {@link SwitchSessions} or
 * the fault manager) waits for its re-route ({@link RerouteSchedule}), is snapshotted by discovery, routed by the
 * routing manager and installed by the pusher, and the daemon's state follows ({@link Convergence}). The managers own
 * their state; this class only sequences them, on the control thread.
 */
final class FabricCoordinator implements LftPusher.Listener, FaultActions, DiscoveryManager.Listener,
        RoutingManager.Listener, SessionLosses.Outcome {
    private static final Logger LOG = LoggerFactory.getLogger(FabricCoordinator.class);

    private final SettleWindows settle;
    private final ControlLoop queue;
    private final MilestoneLog milestones;
    private Managers m;
    private RerouteSchedule reroutes;
    private Convergence convergence;
    private PreparedRouting prepared;
    /** The discovery snapshot the computation under way routes (it is in force once computed or found unchanged). */
    private long routingSnapshot;
    private Runnable changeObserver = () -> { };
    /** Told of the end of every computation after the coordinator (the rebalancer; control thread). */
    private RoutingManager.Listener routingObserver;

    /** The managers the coordinator sequences (built by {@link DaemonAssembly}). */
    record Managers(SwitchRegistry registry, AdmissionPolicy admission, DiscoveryManager discovery,
                    RoutingManager routing, LftPusher pusher, FaultManager faults, SessionLosses losses,
                    SessionEnds ends) {
    }

    FabricCoordinator(SettleWindows settle, ControlLoop queue, MilestoneLog milestones) {
        this.settle = settle;
        this.queue = queue;
        this.milestones = milestones;
    }

    /** Hands the coordinator its managers (once, before any event; they were built with it as their listener). */
    void wire(Managers managers) {
        if (m != null) {
            throw new IllegalStateException("already wired");
        }
        m = managers;
        reroutes = new RerouteSchedule(settle, queue, m, this::route);
        convergence = new Convergence(queue, milestones, m, reroutes::due);
        prepared = new PreparedRouting(m, convergence, reroutes, () -> changeObserver.run());
        m.faults().reactions().pushFigures(m.pusher());
        m.losses().outcome(this);
        m.faults().quietWhileAway(m.losses()::away, m.losses()::declaredDeadWhileAway, m.losses()::inBurst);
    }

    /**
     * An admitted switch lost its session after discovery ({@link SessionLosses} gathers the burst): the re-route waits
     * for the burst's judgement, since the switches of a management-network outage keep forwarding.
     */
    void sessionLost() {
        reroutes.otherChange();
        changeObserver.run();
        if (m.losses().judging(convergence.routedAround())) {
            convergence.noteChange(); // a lost session is judged before the fabric changes: part of the convergence
        }
        updateState();
    }

    @Override
    public void switchesLost() {
        fabricChanged();
    }

    @Override
    public void managementOutage() {
        // their switches kept forwarding: nothing to route around, and no fault reaction opened for them
        updateState();
    }

    /** {@code observer} is told of the routing in force each time the tables converge on it (control thread). */
    void onConverged(Consumer<ActiveRouting> observer) {
        convergence.onConverged(observer);
    }

    /** {@code observer} is told of the end of every routing computation, after the coordinator (control thread). */
    void onRoutingEnded(RoutingManager.Listener observer) {
        routingObserver = observer;
    }

    /** {@code observer} runs on the control thread at every change of the fabric (the quality measurement yields). */
    void onFabricChanging(Runnable observer) {
        changeObserver = observer;
    }

    /** Tells {@code observer} of every change of state (once, at wiring). */
    void onStateChanged(Runnable observer) {
        convergence.onStateChanged(observer);
    }

    @Override
    public void progress() {
        updateState();
    }

    /** Every switch is gone (daemon network cut, mass restart): discover again before routing. */
    void everySwitchGone() {
        ActiveRouting active = m.routing().active();
        LOG.warn("every switch disconnected; keeping tables{} and discovering again",
                active == null ? "" : " v" + active.version());
        m.discovery().restart();
        reroutes.cancel();
        updateState();
    }

    /** The state as last published by the control thread (any thread). */
    DaemonState state() {
        return convergence.state();
    }

    /** Judges the state from the managers now (control thread). */
    void updateState() {
        convergence.update();
    }

    // ---- fault actions (control thread) -------------------------------------------------------

    /** The switch cannot be managed any more: its session is closed as if it was lost. */
    @Override
    public void dropSession(ManagedSwitch ms, String reason) {
        // a confirmed verdict: its routing (perhaps prepared) must not wait
        sessionEnded(m.ends().end(ms.session(), reason, true));
        ms.session().close(reason);
    }

    /** Carries out what the end of a session asks of the fabric ({@link SessionEnds}). */
    void sessionEnded(SessionEnds.Outcome outcome) {
        switch (outcome) {
            case NONE -> { }
            case STATE -> updateState();
            case FABRIC_CHANGED -> {
                fabricChanged();
                updateState();
            }
            case SESSION_LOST -> {
                sessionLost();
                updateState();
            }
            case EVERY_SWITCH_GONE -> everySwitchGone();
        }
    }

    @Override
    public void maskChanged() {
        m.discovery().invalidate();
        fabricChanged();
    }

    /** The fabric changed (a switch admitted or lost, a mask, a rebuild): route again once it settles. */
    public void fabricChanged() {
        reroutes.otherChange();
        changed();
    }

    /**
     * Switch {@code guid}'s port {@code port} changed state (a PORT_STATUS); the switch at the link's other end,
     * {@code peerGuid} port {@code peerPort} (0: none, or a node), reported the same state already when
     * {@code peerAgrees}. Call {@link #linksChanged} after the report's ports.
     */
    void linkPortChanged(long guid, int port, long peerGuid, int peerPort, boolean peerAgrees) {
        reroutes.portChanged(guid, port, peerGuid, peerPort, peerAgrees);
    }

    /**
     * Ports changed state (after {@link #linkPortChanged} for each): route again once it settles; during a fault
     * reaction, at once when every changed link has been reported by both its ends (nothing more about it can come).
     */
    void linksChanged() {
        changed();
        reroutes.linksChanged(convergence.judged() == DaemonState.DISCOVERING);
    }

    private void changed() {
        changeObserver.run();
        convergence.noteChange();
        if (!m.discovery().done()) {
            m.discovery().changed();
            return;
        }
        if (reroutes.changed()) {
            m.routing().abandonRefinement(); // the change's repair must not wait for a full routing's time
        }
        updateState(); // ROUTING: the tables in force are not those of the fabric now
    }

    @Override
    public void stateMayHaveChanged() {
        updateState();
    }

    @Override
    public void prepareWithout(long guid) {
        prepared.prepareWithout(guid);
    }

    @Override
    public void preparationRefuted(long guid) {
        prepared.refuted(guid);
    }

    @Override
    public void prepared() {
        if (!reroutes.prepared()) {
            prepared.stageAhead();
        }
        updateState();
    }

    // ---- discovery, routing, push (control thread) --------------------------------------------

    @Override
    public void settled(String why) {
        route();
    }

    @Override
    public void rebuilt() {
        fabricChanged();
    }

    @Override
    public void checked() {
        updateState(); // the verdict of the routed fabric may be the last thing CONVERGED waited for
    }

    /** Snapshots the fabric and routes it unless the routed fabric is the same. */
    private void route() {
        reroutes.routing(); // the snapshot takes every change reported so far
        m.admission().remember();
        long t0 = System.nanoTime();
        TopologyBuilder.Result discovery = m.discovery().snapshot();
        m.faults().reactions().snapshot((System.nanoTime() - t0) / 1e6);
        Fabric fabric = discovery.fabric();
        if (fabric.switches().isEmpty()) {
            ActiveRouting active = m.routing().active();
            LOG.warn("no switch is connected{}", active == null ? "" : ": keeping tables v" + active.version());
            updateState();
            return;
        }
        m.faults().rememberBaseline(fabric);
        m.faults().planRing(fabric);
        prepared.routing();
        routingSnapshot = m.discovery().snapshotNumber();
        RoutingManager.Decision d = m.routing().consider(fabric);
        if (d != RoutingManager.Decision.STARTED) {
            m.pusher().dropStaged(); // no new tables: whatever was staged ahead will not be installed
        }
        if (d == RoutingManager.Decision.REUSED) {
            m.discovery().inForce(routingSnapshot);
            startPush(m.routing().active());
        } else if (d == RoutingManager.Decision.STARTED) {
            reroutes.computationStarted();
        }
        updateState();
    }

    @Override
    public void computed(ActiveRouting routing, double engineMs) {
        m.faults().reactions().computed(engineMs);
        m.discovery().inForce(routingSnapshot);
        if (routing.churn() != null) {
            m.faults().reactions().churn(routing.churn());
        }
        // taken off the fault's path above a size: the reaction's milestone waits for it, its convergence does not
        Object token = m.faults().reactions().impactPending();
        CompletableFuture<NodeImpact> impact = routing.impact();
        if (impact.isDone()) {
            m.faults().routingImpact(token, impact.isCompletedExceptionally() ? NodeImpact.NONE : impact.join());
        } else {
            impact.whenComplete((i, error) -> queue.append("node-impact v" + routing.version(),
                    () -> m.faults().routingImpact(token, error == null ? i : NodeImpact.NONE)));
        }
        startPush(routing);
        afterComputation();
        if (routingObserver != null) {
            routingObserver.computed(routing, engineMs);
        }
    }

    @Override
    public void failed(long version, Throwable cause) {
        afterComputation();
        if (routingObserver != null) {
            routingObserver.failed(version, cause);
        }
    }

    @Override
    public void unchanged() {
        m.discovery().inForce(routingSnapshot); // equal to the fabric routed: its check is that fabric's
        afterComputation();
        if (routingObserver != null) {
            routingObserver.unchanged();
        }
    }

    private void afterComputation() {
        reroutes.computationEnded();
        updateState();
    }

    private void startPush(ActiveRouting routing) {
        TableSet tables = routing.tables();
        PushRound previous = m.pusher().round();
        // a switch these tables give no link (dead, its agent still refusing tables until its session ends) carries
        // no packet: the fault's reaction ends when the switches that carry the traffic hold them
        convergence.routedAround(RoutedAround.in(routing.fabric()));
        m.pusher().install(tables, convergence.routedAround());
        PushRound round = m.pusher().round();
        m.faults().reactions().pushStarted(previous, round);
        if (m.pusher().pendingCount() > 0) {
            // the blocks of the batches on the wire so far (push.maxInFlight tables' worth): the others are computed
            // when their switch's turn comes, and the CONVERGED milestone gives the whole push
            milestones.record(Milestone.Kind.PUSH_STARTED, "pushing v" + tables.version() + " to "
                    + m.pusher().pendingCount() + " switches (first batches on the wire: " + round.blocks() + " blocks, "
                    + round.bytes() + " bytes)");
        }
        updateState();
    }

    // ---- operator actions and lifecycle (control thread) ---------------------------------------

    /** Forces a re-route (REST); the answer says whether one was started. */
    String forceReroute() {
        if (!m.discovery().done()) {
            return "discovery has not finished: routing starts on its own";
        }
        m.faults().reactions().operator("operator: forced re-route");
        m.routing().forceNext();
        fabricChanged();
        updateState();
        return "re-route scheduled";
    }

    /** Loads the state directory. */
    void loadState() {
        m.discovery().loadIndices();
        m.routing().load();
        if (m.routing().stored() != null) {
            LOG.info("state directory: {} destination indices, stored routing v{} ({} switches, fingerprint {})",
                    m.discovery().indexCount(), m.routing().stored().version(),
                    m.routing().stored().tables().switchCount(), m.routing().stored().fingerprint().substring(0, 12));
        } else {
            LOG.info("state directory: {} destination indices, no stored routing", m.discovery().indexCount());
        }
    }

    /** From now on, lost sessions are the daemon's own doing: no milestones, no re-routing. */
    void stopping() {
        m.admission().remember();
        m.ends().stopping();
        m.faults().stopping();
        reroutes.cancel();
        m.discovery().cancel();
        m.routing().storeUnsaved(); // the daemon waits for the store executor before it releases the directory
    }

    /** The settle windows of a configuration reload (control thread): the next re-route uses them. */
    void retune(SettleWindows windows) {
        reroutes.retune(windows);
    }
}
