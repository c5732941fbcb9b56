package org.fabricmanager.daemon;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.discovery.DiscoveryManager;
import org.fabricmanager.daemon.discovery.TopologyBuilder;
import org.fabricmanager.daemon.faults.FaultActions;
import org.fabricmanager.daemon.faults.FaultManager;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.push.PushRound;
import org.fabricmanager.daemon.push.PushTotals;
import org.fabricmanager.daemon.push.RoutedAround;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.registry.AdmissionPolicy;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.NodeImpact;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control loop's sequence: once discovery settles, every change of the fabric (from
 * {@link SwitchSessions} or the fault manager) is debounced (the routing settle window, or the shorter fault
 * settle window during a reaction), snapshotted by discovery, routed by the routing manager and installed
 * by the pusher; the daemon's {@link DaemonState} follows. The managers own their state; this class only
 * sequences them, on the control thread.
 */
final class FabricCoordinator implements LftPusher.Listener, FaultActions, DiscoveryManager.Listener,
        RoutingManager.Listener, SessionLosses.Outcome {
    private static final Logger LOG = LoggerFactory.getLogger(FabricCoordinator.class);
    private static final String REROUTE = "reroute";
    /** Deferred: the work after the first convergence, if the ring's start has not ended by then. */
    static final String AFTER_RING_START = "after-ring-start";
    /** The fault rehearsal and the first quality measurement wait for the ring's start ({@link #afterRingStart}). */
    private boolean afterRingStartPending;

    private SettleWindows settle; // re-tuned by a reload (control thread)
    private final ControlLoop queue;
    private final MilestoneLog milestones;
    private Managers m;

    private boolean rerouteScheduled;
    /** The discovery snapshot the computation under way routes (it is in force once computed or found unchanged). */
    private long routingSnapshot;
    private boolean changedWhileRouting;
    /**
     * The switches the tables being installed route no traffic through ({@link RoutedAround}): neither their push
     * nor the judgement of their lost sessions holds back CONVERGED.
     */
    private LongPredicate routedAround = guid -> false;
    private DaemonState state = DaemonState.DISCOVERING;
    private volatile DaemonState publishedState = DaemonState.DISCOVERING;
    /** The first change since the last convergence (or the start): the start of the convergence time reported. */
    private long changeStartNanos = System.nanoTime();
    /** Whether {@link #changeStartNanos} holds the first change since the last convergence. */
    private boolean changeNoted = true;
    private long convergences;
    /** The pusher's totals at the last convergence: the next one reports what was pushed since. */
    private PushTotals pushedAtConvergence = PushTotals.ZERO;
    /** Told of the routing in force each time the tables converge (the quality monitor; control thread). */
    private Consumer<ActiveRouting> convergedObserver = r -> { };
    private Runnable changeObserver = () -> { };
    /** Told after every change of state (the reads waiting for handed tables; control thread). */
    private Runnable stateObserver = () -> { };
    /** Told of the end of every computation after the coordinator (the rebalancer; control thread). */
    private RoutingManager.Listener routingObserver;
    /** The switch a prepared routing leaves out (its verdict is being checked), 0 when none. */
    private long preparedFor;
    /** Whether the changes since the last re-route are links reported by both ends (the settle can end at once). */
    private final LinkReports links = new LinkReports();
    /** The fault settle window once every changed link was reported by both its ends: reports of one burst coalesce. */
    static final long LINKS_COMPLETE_SETTLE_MS = 5;

    /** The managers the coordinator sequences (built by {@link FabricManagerDaemon}). */
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
        m.faults().onRingStarted(this::afterRingStart);
        m.faults().reactions().pushFigures(m.pusher());
        m.losses().outcome(this);
        m.faults().quietWhileAway(m.losses()::away, m.losses()::declaredDeadWhileAway, m.losses()::inBurst);
    }

    /**
     * An admitted switch lost its session after discovery ({@link SessionLosses} gathers the burst): the re-route waits
     * for the burst's judgement, since the switches of a management-network outage keep forwarding.
     */
    void sessionLost() {
        links.otherChange();
        changeObserver.run();
        if (m.losses().judging(routedAround)) {
            noteChange(); // a lost session is judged before the fabric changes: its judgement is part of the convergence
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

    /**
     * The ring's start ended (every switch answered its configuration, or the wait for the last answer ended), or
     * the deferred bound passed: the fault rehearsal and the quality measurement held back at the first convergence
     * run now (control thread). They took the daemon's cores for 20-30 s at 5,120 switches, while thousands of
     * members started on the agents' hosts (in a simulator, on the same cores) and answered the daemon's lookups.
     */
    private void afterRingStart() {
        if (!afterRingStartPending) {
            return;
        }
        afterRingStartPending = false;
        queue.cancelDeferred(AFTER_RING_START);
        m.routing().rehearse(); // compiles the fault path before the first fault needs it
        ActiveRouting active = m.routing().active();
        if (state == DaemonState.CONVERGED && active != null) {
            convergedObserver.accept(active); // otherwise the next convergence measures
        }
    }

    /** {@code observer} is told of the routing in force each time the tables converge on it (control thread). */
    void onConverged(Consumer<ActiveRouting> observer) {
        convergedObserver = observer;
    }

    /** {@code observer} is told of the end of every routing computation, after the coordinator (control thread). */
    void onRoutingEnded(RoutingManager.Listener observer) {
        routingObserver = observer;
    }

    /** {@code observer} runs on the control thread at every change of the fabric (the quality measurement yields). */
    void onFabricChanging(Runnable observer) {
        changeObserver = observer;
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
        queue.cancelDeferred(REROUTE);
        rerouteScheduled = false;
        updateState();
    }

    /** The state as last published by the control thread (any thread). */
    DaemonState state() {
        return publishedState;
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
        links.otherChange();
        changed();
    }

    /**
     * Switch {@code guid}'s port {@code port} changed state (a PORT_STATUS); the switch at the link's other end,
     * {@code peerGuid} port {@code peerPort} (0: none, or a node), reported the same state already when
     * {@code peerAgrees}. Call {@link #linksChanged} after the report's ports.
     */
    void linkPortChanged(long guid, int port, long peerGuid, int peerPort, boolean peerAgrees) {
        links.portChanged(guid, port, peerGuid, peerPort, peerAgrees);
    }

    /**
     * Ports changed state (after {@link #linkPortChanged} for each): route again once it settles; during a fault
     * reaction, at once when every changed link has been reported by both its ends (nothing more about it can come).
     */
    void linksChanged() {
        changed();
        if (rerouteScheduled && links.complete() && m.faults().reactions().isOpen() && !m.routing().hasPrepared()
                && state != DaemonState.DISCOVERING) {
            queue.scheduleDeferred(REROUTE, Math.min(LINKS_COMPLETE_SETTLE_MS, settle.faultsMs()), this::reroute);
        }
    }

    private void changed() {
        changeObserver.run();
        noteChange();
        if (!m.discovery().done()) {
            m.discovery().changed();
            return;
        }
        if (m.routing().busy()) {
            changedWhileRouting = true;
            m.routing().abandonRefinement(); // the change's repair must not wait for a full routing's time
            updateState(); // ROUTING: the tables in force are not those of the fabric now
            return;
        }
        if (!rerouteScheduled) {
            rerouteScheduled = true;
            // a prepared routing waits for the confirmation of a verdict, whose echo wait was the settle window
            queue.scheduleDeferred(REROUTE, m.routing().hasPrepared() ? 0 : m.faults().reactions().isOpen()
                    ? settle.faultsMs() : settle.routingMs(), this::reroute);
        }
        updateState();
    }

    @Override
    public void stateMayHaveChanged() {
        updateState();
    }

    /**
     * Lifeguard's second opinion costs its echo wait on every real death; the routing without the accused switch is
     * computed during that wait (from the fabric derived without it), so that the confirmation only installs it.
     * Skipped when anything else is under way (a computation, a re-route due, changes not snapshotted): the normal
     * path then handles the confirmation.
     */
    @Override
    public void prepareWithout(long guid) {
        if (state != DaemonState.CONVERGED || rerouteScheduled || m.routing().busy() || m.routing().hasPrepared()) {
            LOG.debug("no routing prepared without {}: state {}, re-route due {}, computing {}, one prepared already {}",
                    Guids.format(guid), state, rerouteScheduled, m.routing().busy(),
                    m.routing().hasPrepared());
            return;
        }
        Fabric without = m.discovery().snapshotWithout(guid);
        if (without != null && m.routing().prepare(without)) {
            // the quality measurement gives the cores to this computation (at 5,120 switches it doubled the prepared
            // routing's time); a refutation restarts it, and preparations are rare: not within 30 s of a refutation
            changeObserver.run();
            preparedFor = guid;
        } else {
            LOG.debug("no routing prepared without {}: {}", Guids.format(guid), without == null
                    ? "the fabric without it is not derivable now (a build is due, or a node of it has another claim)" : "not started");
        }
    }

    @Override
    public void preparationRefuted(long guid) {
        if (preparedFor != guid) {
            return;
        }
        preparedFor = 0;
        m.routing().discardPrepared();
        m.pusher().dropStaged();
        m.discovery().forgetTentative();
        ActiveRouting active = m.routing().active();
        if (state == DaemonState.CONVERGED && active != null) {
            convergedObserver.accept(active); // the measurement the preparation interrupted starts again
        }
    }

    @Override
    public void prepared() {
        if (changedWhileRouting) {
            // the confirmation came during the computation: its snapshot is the prepared fabric, no settle needed
            changedWhileRouting = false;
            rerouteScheduled = true;
            queue.scheduleDeferred(REROUTE, 0, this::reroute);
        } else {
            stageAhead();
        }
        updateState();
    }

    /**
     * Sends the prepared routing's blocks to the switches it changes while the verdict is still being confirmed, so
     * that the confirmation sends only commits: at 5,120 switches a spine's death changes about 1,000 blocks on each
     * of 64 switches (4 MB), which otherwise go out after the verdict, on the reaction's path. Only when every switch
     * holds the tables in force (a push under way would be interleaved with it).
     */
    private void stageAhead() {
        TableSet next = m.routing().preparedTables();
        if (next == null || preparedFor == 0 || state != DaemonState.CONVERGED) {
            return;
        }
        int switches = m.pusher().stage(next);
        LOG.debug("prepared routing v{} without {}: blocks staged on {} switches ahead of the confirmation",
                next.version(), Guids.format(preparedFor), switches);
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

    /** Starts the next convergence's clock at the first change since the last convergence. */
    private void noteChange() {
        if (!changeNoted) {
            changeNoted = true;
            changeStartNanos = System.nanoTime();
        }
    }

    private void reroute() {
        rerouteScheduled = false;
        if (m.routing().busy()) {
            changedWhileRouting = true;
            return;
        }
        route();
    }

    /** Snapshots the fabric and routes it unless the routed fabric is the same. */
    private void route() {
        links.clear(); // the snapshot takes every change reported so far
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
        preparedFor = 0; // the prepared routing, if any, is installed now (this very fabric) or dropped
        routingSnapshot = m.discovery().snapshotNumber();
        RoutingManager.Decision d = m.routing().consider(fabric);
        if (d != RoutingManager.Decision.STARTED) {
            m.pusher().dropStaged(); // no new tables: whatever was staged ahead will not be installed
        }
        if (d == RoutingManager.Decision.REUSED) {
            m.discovery().inForce(routingSnapshot);
            startPush(m.routing().active());
        } else if (d == RoutingManager.Decision.STARTED) {
            changedWhileRouting = false;
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
        if (changedWhileRouting) {
            changedWhileRouting = false;
            rerouteScheduled = true;
            // a fault's links reported by both ends meanwhile settle as they would have without the computation
            queue.scheduleDeferred(REROUTE, links.complete() && m.faults().reactions().isOpen()
                    ? Math.min(LINKS_COMPLETE_SETTLE_MS, settle.faultsMs()) : settle.routingMs(), this::reroute);
        }
        updateState();
    }

    private void startPush(ActiveRouting routing) {
        TableSet tables = routing.tables();
        PushRound previous = m.pusher().round();
        // a switch these tables give no link (dead, its agent still refusing tables until its session ends) carries
        // no packet: the fault's reaction ends when the switches that carry the traffic hold them
        routedAround = RoutedAround.in(routing.fabric());
        m.pusher().install(tables, routedAround);
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

    void updateState() {
        ActiveRouting active = m.routing().active();
        int admitted = m.registry().admittedCount();
        DaemonState next;
        // a change that arrived during a prepared computation waits for it: ROUTING too (not CONVERGED, which would
        // close the reaction the change opened as needing no tables)
        // lost sessions waiting for their burst's judgement are a settle window: not CONVERGED on a fabric that has
        // lost switches the routing in force still routes traffic through (one it routes around changes nothing)
        if (m.routing().running() || rerouteScheduled || changedWhileRouting && m.routing().busy()
                || m.losses().judging(routedAround)) {
            next = DaemonState.ROUTING;
        } else if (active == null || admitted == 0) {
            next = DaemonState.DISCOVERING;
        } else if (m.pusher().awaitedCount() > 0 || m.pusher().uncoveredCount() > 0) {
            next = DaemonState.PUSHING;
        } else if (m.discovery().routedCheck().verdict() == FabricCheck.Verdict.PENDING) {
            // the routed fabric's check against the expected shape runs off this thread and may end after the push:
            // CONVERGED waits for it, so that the status never gives the verdict of another fabric beside it
            next = DaemonState.ROUTING;
        } else {
            next = DaemonState.CONVERGED;
        }
        if (next != DaemonState.CONVERGED && state == DaemonState.CONVERGED) {
            noteChange(); // whatever took it out of CONVERGED, should no path above have noted it
        }
        if (next == DaemonState.CONVERGED && state != DaemonState.CONVERGED) {
            PushRound round = m.pusher().round();
            convergences++;
            changeNoted = false;
            // what went out since the last convergence, each block once (a version's round also counts the switches
            // that reconnected and got it again)
            PushTotals totals = m.pusher().totals();
            PushTotals pushed = totals.since(pushedAtConvergence);
            pushedAtConvergence = totals;
            int around = m.pusher().routedAroundCount();
            milestones.record(Milestone.Kind.CONVERGED, String.format(
                    "tables converged: v%d on %d/%d switches, %.0f ms after %s (%d blocks, %d bytes, %d retries)%s",
                    active.version(), m.pusher().inSyncCount(), admitted, (System.nanoTime() - changeStartNanos) / 1e6,
                    convergences == 1 ? "start" : "the first change", pushed.blocks(), pushed.bytes(),
                    round == null ? 0 : round.retries(), around == 0 ? "" : "; " + around + (around == 1 ? " switch"
                            : " switches") + " without a link in the routed fabric not holding them yet (routed around)"));
            m.faults().reactions().converged(round, active.version());
            m.faults().tablesConverged(); // the first time: the ring starts now that the tables are in place
            m.routing().storeWhenQuiet(); // after the push, which needed the cores more, and after a burst of faults
            if (convergences == 1 && m.faults().ringStarting()) {
                // the ring starts now (the first tables are in place): its members and their lookups first
                afterRingStartPending = true;
                queue.scheduleDeferred(AFTER_RING_START, m.faults().ringStartWaitMs(), this::afterRingStart);
            } else {
                if (convergences == 1) {
                    m.routing().rehearse(); // compiles the fault path before the first fault needs it
                }
                convergedObserver.accept(active);
            }
        } else if (next == DaemonState.CONVERGED) {
            m.faults().reactions().noTablesNeeded();
        }
        boolean changed = state != next;
        state = next;
        publishedState = next;
        if (changed) {
            stateObserver.run();
        }
    }

    /** Tells {@code observer} of every change of state (once, at wiring). */
    void onStateChanged(Runnable observer) {
        this.stateObserver = observer;
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
        queue.cancelDeferred(REROUTE);
        m.discovery().cancel();
        m.routing().storeUnsaved(); // the daemon waits for the store executor before it releases the directory
    }

    /** The settle windows of a configuration reload (control thread): the next re-route uses them. */
    void retune(SettleWindows windows) {
        settle = windows;
    }
}
