package org.fabricmanager.daemon;

import java.util.Optional;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.EventQueue;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.discovery.DiscoveryManager;
import org.fabricmanager.daemon.discovery.TopologyBuilder;
import org.fabricmanager.daemon.faults.FaultActions;
import org.fabricmanager.daemon.faults.FaultManager;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.push.PushRound;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.registry.HelloVerdict;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.southbound.AgentSession;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.fabricmanager.southbound.MessageType;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.SouthboundListener;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control loop's sequence: southbound events go to the switch registry and discovery; once
 * discovery settles, every change is debounced (a routing settle window, or the shorter fault settle
 * window during a reaction), snapshotted by discovery, routed by the routing manager and installed by the
 * pusher; the daemon's {@link DaemonState} follows. The managers own their state; this class only
 * sequences them, on the control thread (southbound callbacks arrive on I/O threads and are queued).
 */
final class FabricCoordinator implements SouthboundListener, LftPusher.Listener, FaultActions,
        DiscoveryManager.Listener, RoutingManager.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(FabricCoordinator.class);
    private static final String REROUTE = "reroute";

    private final DaemonConfig config;
    private final EventQueue queue;
    private final MilestoneLog milestones;
    private final DaemonMetrics metrics;
    private final long daemonId;
    private Managers m;

    private boolean rerouteScheduled;
    private boolean changedWhileRouting;
    private boolean stopping;
    private DaemonState state = DaemonState.DISCOVERING;
    private volatile DaemonState publishedState = DaemonState.DISCOVERING;
    /** When the fabric last changed while converged: the start of the convergence time reported. */
    private long changeStartNanos = System.nanoTime();
    private long convergences;

    /** The managers the coordinator sequences (built by {@link FabricManagerDaemon}). */
    record Managers(SwitchRegistry registry, DiscoveryManager discovery, RoutingManager routing, LftPusher pusher,
                    FaultManager faults) {
    }

    FabricCoordinator(DaemonConfig config, EventQueue queue, MilestoneLog milestones, DaemonMetrics metrics,
                      long daemonId) {
        this.config = config;
        this.queue = queue;
        this.milestones = milestones;
        this.metrics = metrics;
        this.daemonId = daemonId;
    }

    /** Hands the coordinator its managers (once, before any event; they were built with it as their listener). */
    void wire(Managers managers) {
        if (m != null) {
            throw new IllegalStateException("already wired");
        }
        m = managers;
    }

    /** The state as last published by the control thread (any thread). */
    DaemonState state() {
        return publishedState;
    }

    // ---- southbound callbacks (I/O threads) ---------------------------------------------------

    @Override
    public void helloReceived(AgentSession session, Hello hello) {
        queue.append("hello " + Guids.format(hello.guid()), () -> onHello(session, hello));
    }

    @Override
    public void portInfoReceived(AgentSession session, PortInfo info) {
        queue.append("port-info " + Guids.format(session.guid()), () -> onPortInfo(session, info));
    }

    @Override
    public void portStatusReceived(AgentSession session, PortStatus status) {
        queue.append("port-status " + Guids.format(session.guid()), () -> onPortStatus(session, status));
    }

    @Override
    public void sessionClosed(AgentSession session, String reason) {
        queue.append("closed " + session.id(), () -> onClosed(session, reason));
    }

    @Override
    public void progress() {
        updateState();
    }

    // ---- sessions (control thread) ------------------------------------------------------------

    private void onHello(AgentSession session, Hello hello) {
        HelloVerdict v = m.registry().judge(hello);
        if (v.kind() == HelloVerdict.Kind.OLDER) {
            ManagedSwitch existing = v.existing();
            session.reject(ErrorCode.DUPLICATE_GUID, hello, "switch " + Guids.format(hello.guid())
                    + " is already connected (" + existing.session() + ", incarnation "
                    + Long.toUnsignedString(existing.hello().incarnation()) + "); incarnation "
                    + Long.toUnsignedString(hello.incarnation()) + " is lower, so it cannot take it over");
            return;
        }
        if (v.takesOver()) {
            takeOver(v.existing(), session, hello, v.kind() == HelloVerdict.Kind.RECONNECT);
        }
        m.registry().register(session, hello, System.currentTimeMillis());
        session.acceptHello(daemonId);
    }

    /**
     * A restarted agent (higher incarnation), or the same run reconnecting (equal incarnation: it gave
     * the old connection up, e.g. after a network outage longer than its echo timeout), supersedes the
     * session still held for it, typically a connection whose end died without a FIN, which the idle
     * timeout would only notice much later. The old session is closed exactly as any lost session is;
     * its own close event, and any report of it still queued, come later and are ignored, since the
     * GUID then belongs to the new session.
     */
    private void takeOver(ManagedSwitch old, AgentSession successor, Hello hello, boolean sameRun) {
        String guid = Guids.format(hello.guid());
        String incarnation = Long.toUnsignedString(hello.incarnation());
        String reason = sameRun
                ? "superseded by a new connection of the same agent run (incarnation " + incarnation + ", "
                        + successor.remoteAddress() + ")"
                : "superseded by its restarted agent (incarnation " + incarnation + ", " + successor.remoteAddress() + ")";
        if (sameRun) {
            milestones.record(Milestone.Kind.SWITCH_RECONNECTED, "switch " + guid + " (" + hello.name() + ") reconnected "
                    + "(incarnation " + incarnation + ") while its previous connection still looked open: took over "
                    + "its session");
        } else {
            milestones.record(Milestone.Kind.SWITCH_RESTARTED, "switch " + guid + " (" + hello.name() + ") restarted "
                    + "(incarnation " + Long.toUnsignedString(old.hello().incarnation()) + " -> " + incarnation
                    + "): took over its session");
        }
        onClosed(old.session(), reason);
        old.session().reject(ErrorCode.SUPERSEDED, null, "switch " + guid + ": " + reason);
    }

    private void onPortInfo(AgentSession session, PortInfo info) {
        ManagedSwitch ms = m.registry().current(session);
        if (ms == null) {
            return;
        }
        Optional<String> conflict = m.discovery().conflict(ms.guid(), info.ports());
        if (conflict.isPresent()) {
            refuse(ms, info, conflict.get());
            return;
        }
        boolean changed = false;
        for (PortRecord r : info.ports()) {
            changed |= m.discovery().report(ms.ports(), r, ms.admitted());
        }
        session.acknowledge(info.txid(), MessageType.PORT_INFO);
        if (!ms.admitted()) {
            admit(ms);
            changed = true;
        }
        if (changed) {
            fabricChanged();
        }
        updateState();
    }

    private void admit(ManagedSwitch ms) {
        m.registry().admit(ms);
        m.discovery().admitted(ms.ports());
        m.pusher().attach(ms.guid(), ms.name(), ms.session(), ms.hello());
        if (m.discovery().done()) {
            m.faults().event("switch " + ms.name() + " connected");
        }
        m.faults().switchAdmitted(ms);
        milestones.record(Milestone.Kind.SWITCH_CONNECTED, "switch " + Guids.format(ms.guid()) + " (" + ms.name()
                + ") connected from " + ms.session().remoteAddress() + ", " + ms.ports().portsUp() + "/"
                + ms.hello().portCount() + " ports up, holding table v" + ms.hello().tableVersion());
    }

    private void onPortStatus(AgentSession session, PortStatus status) {
        ManagedSwitch ms = m.registry().current(session);
        if (ms == null || !ms.admitted()) {
            return;
        }
        Optional<String> conflict = m.discovery().conflict(ms.guid(), status.ports());
        if (conflict.isPresent()) {
            refuse(ms, status, conflict.get());
            return;
        }
        boolean discovered = m.discovery().done();
        boolean changed = false;
        for (PortRecord r : status.ports()) {
            boolean wasUp = ms.ports().port(r.port()).isUp();
            if (!m.discovery().report(ms.ports(), r, true)) {
                continue;
            }
            if (discovered && wasUp != r.isUp() && !m.faults().portTransition(ms, r.port(), r.isUp())) {
                continue;
            }
            changed = true;
            if (discovered) {
                m.faults().event("port-status: " + ms.name() + " port " + r.port() + (r.isUp() ? " up" : " down"));
                if (wasUp != r.isUp()) {
                    if (r.isUp()) {
                        metrics.recovery(DaemonMetrics.FaultType.LINK);
                    } else {
                        metrics.fault(DaemonMetrics.FaultType.LINK);
                    }
                }
            }
            LOG.debug("{}: {}", ms, r);
        }
        if (changed) {
            fabricChanged();
            updateState();
        }
    }

    private void refuse(ManagedSwitch ms, Message about, String conflict) {
        LOG.warn("switch {}: neighbour conflict: {}; closing its session, the confirmed link is kept", ms, conflict);
        removeSwitch(ms);
        if (ms.admitted()) {
            fabricChanged();
        }
        ms.session().reject(ErrorCode.NEIGHBOUR_CONFLICT, about, conflict);
        updateState();
    }

    /** Takes a switch out of the registry, discovery and the pusher. */
    private void removeSwitch(ManagedSwitch ms) {
        if (ms.admitted()) {
            m.discovery().leaving(ms.ports());
            m.pusher().detach(ms.guid());
        }
        m.registry().remove(ms.session());
    }

    private void onClosed(AgentSession session, String reason) {
        ManagedSwitch ms = m.registry().current(session);
        if (ms == null) {
            return;
        }
        if (stopping) {
            m.registry().remove(session);
            return;
        }
        removeSwitch(ms);
        if (ms.admitted()) {
            if (m.discovery().done()) {
                m.faults().event("switch " + ms.name() + " disconnected");
            }
            milestones.record(Milestone.Kind.SWITCH_LOST, "switch " + Guids.format(ms.guid()) + " (" + ms.name()
                    + ") disconnected: " + reason);
            if (m.registry().admittedCount() == 0 && m.discovery().done()) {
                // every agent is gone (daemon network cut, mass restart): rediscover before routing again,
                // instead of routing each partial fabric as agents come back one by one
                ActiveRouting active = m.routing().active();
                LOG.warn("every switch disconnected; keeping tables{} and discovering again",
                        active == null ? "" : " v" + active.version());
                m.discovery().restart();
                queue.cancelDeferred(REROUTE);
                rerouteScheduled = false;
                updateState();
                return;
            }
            fabricChanged();
        }
        updateState();
    }

    // ---- fault actions (control thread) -------------------------------------------------------

    @Override
    public void dropSession(ManagedSwitch ms, String reason) {
        onClosed(ms.session(), reason);
        ms.session().close(reason);
    }

    @Override
    public void fabricChanged() {
        m.discovery().invalidate();
        if (state == DaemonState.CONVERGED) {
            changeStartNanos = System.nanoTime();
        }
        if (!m.discovery().done()) {
            m.discovery().changed();
            return;
        }
        if (m.routing().running()) {
            changedWhileRouting = true;
            return;
        }
        if (!rerouteScheduled) {
            rerouteScheduled = true;
            queue.scheduleDeferred(REROUTE, m.faults().reactions().isOpen() ? config.faults().settleMs()
                    : config.routing().settleMs(), this::reroute);
        }
        updateState();
    }

    @Override
    public void stateMayHaveChanged() {
        updateState();
    }

    // ---- discovery, routing, push (control thread) --------------------------------------------

    @Override
    public void settled(String why) {
        route();
    }

    private void reroute() {
        rerouteScheduled = false;
        if (m.routing().running()) {
            changedWhileRouting = true;
            return;
        }
        route();
    }

    /** Snapshots the fabric and routes it unless the routed fabric is the same. */
    private void route() {
        TopologyBuilder.Result discovery = m.discovery().snapshot();
        Fabric fabric = discovery.fabric();
        if (fabric.switches().isEmpty()) {
            ActiveRouting active = m.routing().active();
            LOG.warn("no switch is connected{}", active == null ? "" : ": keeping tables v" + active.version());
            updateState();
            return;
        }
        m.faults().rememberBaseline(fabric);
        m.faults().planRing(fabric);
        RoutingManager.Decision d = m.routing().consider(fabric);
        if (d == RoutingManager.Decision.REUSED) {
            startPush(m.routing().active().tables());
        } else if (d == RoutingManager.Decision.STARTED) {
            changedWhileRouting = false;
        }
        updateState();
    }

    @Override
    public void computed(ActiveRouting routing, double engineMs) {
        m.faults().reactions().computed(engineMs);
        startPush(routing.tables());
        afterComputation();
    }

    @Override
    public void failed(long version, Throwable cause) {
        afterComputation();
    }

    private void afterComputation() {
        if (changedWhileRouting) {
            changedWhileRouting = false;
            rerouteScheduled = true;
            queue.scheduleDeferred(REROUTE, config.routing().settleMs(), this::reroute);
        }
        updateState();
    }

    private void startPush(TableSet tables) {
        PushRound previous = m.pusher().round();
        m.pusher().install(tables);
        PushRound round = m.pusher().round();
        m.faults().reactions().pushStarted(previous, round);
        if (m.pusher().pendingCount() > 0) {
            milestones.record(Milestone.Kind.PUSH_STARTED, "pushing v" + tables.version() + " to "
                    + m.pusher().pendingCount() + " switches (" + round.blocks() + " blocks, " + round.bytes() + " bytes)");
        }
        updateState();
    }

    private void updateState() {
        ActiveRouting active = m.routing().active();
        int admitted = m.registry().admittedCount();
        DaemonState next;
        if (m.routing().running() || rerouteScheduled) {
            next = DaemonState.ROUTING;
        } else if (active == null || admitted == 0) {
            next = DaemonState.DISCOVERING;
        } else if (m.pusher().pendingCount() > 0 || m.pusher().uncoveredCount() > 0) {
            next = DaemonState.PUSHING;
        } else {
            next = DaemonState.CONVERGED;
        }
        if (next == DaemonState.CONVERGED && state != DaemonState.CONVERGED) {
            PushRound round = m.pusher().round();
            convergences++;
            milestones.record(Milestone.Kind.CONVERGED, String.format(
                    "tables converged: v%d on %d/%d switches, %.0f ms after %s (%d blocks, %d bytes, %d retries)",
                    active.version(), m.pusher().inSyncCount(), admitted, (System.nanoTime() - changeStartNanos) / 1e6,
                    convergences == 1 ? "start" : "the first change",
                    round == null ? 0 : round.blocks(), round == null ? 0 : round.bytes(), round == null ? 0 : round.retries()));
            m.faults().reactions().converged(round, active.version());
        } else if (next == DaemonState.CONVERGED) {
            m.faults().reactions().noTablesNeeded();
        }
        state = next;
        publishedState = next;
    }

    // ---- operator actions and lifecycle (control thread) ---------------------------------------

    /** Forces a re-route (REST); the answer says whether one was started. */
    String forceReroute() {
        if (!m.discovery().done()) {
            return "discovery has not finished: routing starts on its own";
        }
        m.faults().event("operator: forced re-route");
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
        stopping = true;
        m.faults().stopping();
        queue.cancelDeferred(REROUTE);
        m.discovery().cancel();
    }
}
