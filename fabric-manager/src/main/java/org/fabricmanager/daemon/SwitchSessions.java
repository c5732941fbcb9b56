package org.fabricmanager.daemon;

import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.faults.LookupLimiter;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.registry.HelloVerdict;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.fabricmanager.southbound.MessageType;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.SouthboundListener;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agents' sessions as the control loop sees them: a HELLO is judged by the registry (new switch,
 * takeover by a more recent run, or refusal), a first PORT_INFO admits the switch into discovery and the
 * pusher, later reports update discovery (through flap quarantine once discovery is done), and a closed
 * session takes the switch out again. Every change that moves the fabric is handed to the
 * {@link FabricCoordinator}. Southbound callbacks arrive on I/O threads and are queued to the control thread.
 */
final class SwitchSessions implements SouthboundListener {
    private static final Logger LOG = LoggerFactory.getLogger(SwitchSessions.class);
    /** Closes handled on the control thread ({@link #closesHandled()}). */
    private final AtomicLong closesHandled = new AtomicLong();

    private final ControlLoop queue;
    private final MilestoneLog milestones;
    private final DaemonMetrics metrics;
    private final long daemonId;
    private final FabricCoordinator.Managers m;
    private final FabricCoordinator coordinator;
    /** One milestone per pending switch and session, and one WARN line per interval however many wait. */
    private final PendingLog rejectedLog;
    /** The engine whose tables need VC rules on every switch (vtftr), or {@code null}. */
    private final String vcRulesEngine;
    /** Switches refused for lacking VC rules, warned about once each (they retry with backoff). */
    private final Set<Long> refusedWithoutRules = new HashSet<>();
    /** Each session's budget of DETECTOR_LOOKUP members, checked on the I/O thread before anything is queued. */
    private final LookupLimiter lookups;
    /**
     * Switches that an agent of their own managed in this run ({@link #heldByAgent}); read by the OpenSM provider's
     * thread. Bounded: each one took a certificate of the fabric's CA (or an insecure daemon's agent) to get here.
     */
    private final Set<Long> agentSwitches = ConcurrentHashMap.newKeySet();
    private static final int MAX_AGENT_SWITCHES = 1 << 20;

    SwitchSessions(ControlLoop queue, MilestoneLog milestones, DaemonMetrics metrics, long daemonId,
                   FabricCoordinator.Managers managers, FabricCoordinator coordinator) {
        this(queue, milestones, metrics, daemonId, managers, coordinator, null);
    }

    /**
     * @param vcRulesEngine the configured engine when its tables need VC rules ({@code vtftr}): agents whose
     *                      HELLO lacks the VC-rules feature are then refused; {@code null} otherwise
     */
    SwitchSessions(ControlLoop queue, MilestoneLog milestones, DaemonMetrics metrics, long daemonId,
                   FabricCoordinator.Managers managers, FabricCoordinator coordinator, String vcRulesEngine) {
        this.vcRulesEngine = vcRulesEngine;
        this.queue = queue;
        this.milestones = milestones;
        this.metrics = metrics;
        this.daemonId = daemonId;
        this.m = managers;
        this.coordinator = coordinator;
        this.rejectedLog = new PendingLog(milestones);
        this.lookups = new LookupLimiter(metrics.registry());
    }

    /**
     * " (node n5, index 5)" for a port whose peer is an end node, "" otherwise: a node link's fault names its node as
     * the fabric in force knows it (the GUID alone named nothing an operator types).
     */
    private String nodeOf(PortRecord port) {
        if (port.peerKind() != PortRecord.PeerKind.NODE) {
            return "";
        }
        // a node coming back is not in the fabric in force: the first routed fabric knows it
        ActiveRouting a = m.routing().active();
        EndNode node = a == null ? null : a.fabric().nodeByGuid(port.peerGuid()).orElse(null);
        if (node == null && m.faults().baseline() != null) {
            node = m.faults().baseline().nodeByGuid(port.peerGuid()).orElse(null);
        }
        return node == null ? " (node " + Guids.format(port.peerGuid()) + ")"
                : " (node " + node.name() + ", index " + node.index() + ")";
    }

    // ---- southbound callbacks (I/O threads) ---------------------------------------------------

    @Override
    public boolean heldByAgent(long guid) {
        return agentSwitches.contains(guid);
    }

    @Override
    public void helloReceived(SwitchSession session, Hello hello) {
        queue.append("hello " + Guids.format(hello.guid()), () -> onHello(session, hello));
    }

    @Override
    public void portInfoReceived(SwitchSession session, PortInfo info) {
        queue.append("port-info " + Guids.format(session.guid()), () -> onPortInfo(session, info));
    }

    @Override
    public void portStatusReceived(SwitchSession session, PortStatus status) {
        queue.append("port-status " + Guids.format(session.guid()), () -> onPortStatus(session, status));
    }

    @Override
    public void lmcReported(int lmc) {
        queue.append("lmc " + lmc, () -> {
            if (lmc > 0 && !agentSwitches.isEmpty()) {
                // agents forward by destination index, one per node: the fabric keeps one LID per port, and OpenSM's
                // pass is refused for its LMC (OpenSM falls back)
                LOG.warn("OpenSM's end ports have LMC {}, but agents of this daemon have no LMC: kept at 0", lmc);
                return;
            }
            if (m.discovery().lmc(lmc)) {
                LOG.info("OpenSM's end ports answer to {} LID(s) each (LMC {}): each is routed as a destination",
                        1 << lmc, lmc);
                coordinator.fabricChanged();
                coordinator.updateState();
            }
        });
    }

    @Override
    public void tablesUnconfirmed(SwitchSession session, String why) {
        queue.append("unconfirm " + Guids.format(session.guid()), () -> {
            ManagedSwitch ms = m.registry().get(session.guid());
            if (ms != null && ms.session() == session) {
                LOG.debug("{}: its table is confirmed again ({})", ms.name(), why);
                m.pusher().unconfirm(session.guid());
            }
        });
    }

    @Override
    public void detectorEndpointReceived(SwitchSession session, Message.DetectorEndpoint endpoint) {
        queue.append("detector-endpoint " + Guids.format(session.guid()), () -> {
            ManagedSwitch ms = m.registry().get(session.guid());
            if (ms != null && ms.session() == session) {
                ms.detectorEndpoint(new InetSocketAddress(endpoint.address(), endpoint.port()));
                m.faults().detectorEndpoint(ms);
            }
        });
    }

    @Override
    public void detectorLookupReceived(SwitchSession session, Message.DetectorLookup lookup) {
        if (!lookups.admit(session, lookup.members().length)) {
            return; // dropped like a lost datagram: the member asks again after delta
        }
        queue.append("detector-lookup " + Guids.format(session.guid()), () -> {
            ManagedSwitch ms = m.registry().get(session.guid());
            if (ms != null && ms.session() == session) {
                m.faults().detectorLookup(ms, lookup);
            }
        });
    }

    @Override
    public void sessionClosed(SwitchSession session, String reason) {
        lookups.forget(session);
        queue.append("closed " + session.id(), () -> {
            // a session whose end is a fabric change (OpenSM's discovery) is no outage to judge: routed at once
            onClosed(session, reason, !session.capabilities().endIsLoss());
            closesHandled.incrementAndGet();
        });
    }

    /**
     * Closed sessions (any: admitted switches, refused peers) whose end the control thread has handled: whatever
     * a close leads to (a loss judged, a re-route scheduled, the state) is decided once this counts it.
     */
    long closesHandled() {
        return closesHandled.get();
    }

    // ---- sessions (control thread) ------------------------------------------------------------

    private void onHello(SwitchSession session, Hello hello) {
        if (!session.capabilities().agent() && agentSwitches.contains(hello.guid())) {
            // the provider refuses such a subnet before it makes sessions: this is the single writer's own guard
            session.reject(ErrorCode.DUPLICATE_GUID, hello, "switch " + Guids.format(hello.guid()) + " is managed by "
                    + "its agent: OpenSM's subnet cannot take it over");
            return;
        }
        HelloVerdict v = m.registry().judge(hello);
        if (v.existing() != null && !v.existing().session().capabilities().agent() && session.capabilities().agent()) {
            // an agent of its own outranks OpenSM's report of the switch, whatever the incarnations (OpenSM's are its
            // provider's start): OpenSM's session ends, and its subnets are refused while the agent manages it
            milestones.record(Milestone.Kind.SWITCH_RESTARTED, "switch " + Guids.format(hello.guid()) + " ("
                    + hello.name() + ") connected with an agent of its own: it leaves OpenSM's subnet");
            onClosed(v.existing().session(), "its agent connected", true);
            v.existing().session().reject(ErrorCode.SUPERSEDED, null, "switch " + Guids.format(hello.guid())
                    + ": its agent connected");
            v = new HelloVerdict(HelloVerdict.Kind.NEW, null);
        }
        if (v.kind() == HelloVerdict.Kind.OLDER) {
            ManagedSwitch existing = v.existing();
            session.reject(ErrorCode.DUPLICATE_GUID, hello, "switch " + Guids.format(hello.guid())
                    + " is already connected (" + existing.session() + ", incarnation "
                    + Long.toUnsignedString(existing.hello().incarnation()) + "); incarnation "
                    + Long.toUnsignedString(hello.incarnation()) + " is lower, so it cannot take it over");
            return;
        }
        if (vcRulesEngine != null && !hello.supportsVcRules()) {
            // its tables alone can deadlock: a switch that cannot hold the rules must not forward with them
            String why = "this fabric is routed with " + vcRulesEngine + ", whose tables are deadlock-free only with "
                    + "the virtual-channel rules of VC_RULES, and this agent does not announce them (HELLO features "
                    + "0x" + Integer.toHexString(hello.features()) + ", bit 0 unset): upgrade the agent";
            if (refusedWithoutRules.add(hello.guid())) {
                LOG.warn("switch {} ({}) refused: {}", Guids.format(hello.guid()), hello.name(), why);
            } else {
                LOG.debug("switch {} ({}) refused again: {}", Guids.format(hello.guid()), hello.name(), why);
            }
            session.reject(ErrorCode.UNSUPPORTED_VERSION, hello, why);
            return;
        }
        if (v.takesOver()) {
            takeOver(v.existing(), session, hello, v.kind() == HelloVerdict.Kind.RECONNECT);
        }
        m.registry().register(session, hello, System.currentTimeMillis());
        if (session.capabilities().agent() && agentSwitches.size() < MAX_AGENT_SWITCHES) {
            agentSwitches.add(hello.guid());
        }
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
    private void takeOver(ManagedSwitch old, SwitchSession successor, Hello hello, boolean sameRun) {
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
        onClosed(old.session(), reason, true);
        old.session().reject(ErrorCode.SUPERSEDED, null, "switch " + guid + ": " + reason);
    }

    private void onPortInfo(SwitchSession session, PortInfo info) {
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
        m.faults().portsReported(ms);
        if (!ms.admitted()) {
            if (ms.pendingReason() != null) {
                return; // a pending switch's reports are kept, not counted
            }
            String wait = m.admission().judge(ms.guid(), m.registry().admittedCount(), !m.discovery().done());
            String flapping = wait == null ? m.faults().switchHeld(ms, () -> releaseHeld(ms)) : null;
            if (flapping != null) {
                m.registry().pend(ms, flapping); // not the admission policy's: it enters on its own once stable
                return;
            }
            if (wait != null) {
                m.registry().pend(ms, wait);
                m.admission().held(ms.guid(), wait);
                rejectedLog.pending(ms, wait);
                return;
            }
            admit(ms);
            changed = true;
        }
        if (changed) {
            coordinator.fabricChanged();
        }
        coordinator.updateState();
    }

    /** A switch held for flapping stayed connected for the quarantine time: it enters the fabric, if still there. */
    private void releaseHeld(ManagedSwitch ms) {
        if (m.registry().get(ms.guid()) != ms || ms.admitted() || m.ends().isStopping()) {
            return;
        }
        admit(ms);
        coordinator.fabricChanged();
        coordinator.updateState();
    }

    /** An admin admitted switch {@code guid} (REST): a pending switch enters the fabric now. */
    String admitByAdmin(long guid) {
        ManagedSwitch ms = m.registry().get(guid);
        m.admission().admitted(guid);
        m.admission().remember();
        if (ms == null) {
            return "switch " + Guids.format(guid) + " will be admitted when it connects";
        }
        if (ms.admitted()) {
            return "switch " + Guids.format(guid) + " is already in the fabric";
        }
        milestones.record(Milestone.Kind.SWITCH_ADMITTED, "switch " + Guids.format(guid) + " (" + ms.name()
                + ") admitted by an admin");
        admit(ms);
        coordinator.fabricChanged();
        coordinator.updateState();
        return "switch " + Guids.format(guid) + " admitted";
    }

    private void admit(ManagedSwitch ms) {
        m.admission().admitted(ms.guid());
        m.registry().admit(ms);
        m.discovery().admitted(ms.ports());
        m.routing().versionHeld(ms.hello().tableVersion());
        m.pusher().attach(ms.guid(), ms.name(), ms.session(), ms.hello());
        // back from a management-network outage: not a fault's recovery, and announced once for all of them
        boolean outage = m.losses().back(ms);
        if (m.discovery().done() && !outage) {
            m.faults().event("switch " + ms.name() + " connected");
        }
        m.faults().switchAdmitted(ms);
        String connected = "switch " + Guids.format(ms.guid()) + " (" + ms.name() + ") connected from "
                + ms.session().remoteAddress() + ", " + ms.ports().portsUp() + "/" + ms.hello().portCount()
                + " ports up, holding table v" + ms.hello().tableVersion();
        if (outage) {
            LOG.debug("{} (back from the management-network outage)", connected);
        } else {
            milestones.record(Milestone.Kind.SWITCH_CONNECTED, connected);
        }
    }

    private void onPortStatus(SwitchSession session, PortStatus status) {
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
            PortRecord before = ms.ports().port(r.port());
            boolean wasUp = before.isUp();
            if (!m.discovery().report(ms.ports(), r, true)) {
                continue;
            }
            if (discovered && wasUp != r.isUp() && !m.faults().portTransition(ms, r.port(), r.isUp())) {
                continue;
            }
            if (!discovered && wasUp != r.isUp()) {
                m.faults().portReportedBeforeDiscovery(ms, r.port(), r.isUp());
            }
            changed = true;
            if (wasUp != r.isUp()) {
                linkEnd(ms, r.isUp() ? r : before, r.isUp());
            }
            if (discovered) {
                m.faults().event("port-status: " + ms.name() + " port " + r.port() + (r.isUp() ? " up" : " down")
                        + nodeOf(r.isUp() ? r : before));
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
            coordinator.linksChanged();
            coordinator.updateState();
        }
    }

    /**
     * Tells the coordinator about a port of {@code ms} that went {@code up} or down, with its link's other end as
     * {@code link} names it (the new record when up, the previous one when down) and whether that end reported the
     * same state already.
     */
    private void linkEnd(ManagedSwitch ms, PortRecord link, boolean up) {
        if (link.peerKind() != PortRecord.PeerKind.SWITCH) {
            coordinator.linkPortChanged(ms.guid(), link.port(), 0, 0, true);
            return;
        }
        ManagedSwitch peer = m.registry().get(link.peerGuid());
        boolean agrees = false;
        if (peer != null && peer.admitted() && link.peerPort() >= 1 && link.peerPort() <= peer.ports().portCount()) {
            PortRecord other = peer.ports().port(link.peerPort());
            agrees = other.isUp() == up && (!up || other.peerGuid() == ms.guid() && other.peerPort() == link.port());
        }
        coordinator.linkPortChanged(ms.guid(), link.port(), link.peerGuid(), link.peerPort(), agrees);
    }

    private void refuse(ManagedSwitch ms, Message about, String conflict) {
        LOG.warn("switch {}: neighbour conflict: {}; closing its session, the confirmed link is kept", ms, conflict);
        m.ends().remove(ms);
        if (ms.admitted()) {
            coordinator.fabricChanged();
        }
        ms.session().reject(ErrorCode.NEIGHBOUR_CONFLICT, about, conflict);
        coordinator.updateState();
    }

    /** Ends the switch of {@code session}, if it still holds one ({@link SessionEnds#end}), and acts on it. */
    private void onClosed(SwitchSession session, String reason, boolean known) {
        coordinator.sessionEnded(m.ends().end(session, reason, known));
    }
}
