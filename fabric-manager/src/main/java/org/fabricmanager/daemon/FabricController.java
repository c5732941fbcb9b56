package org.fabricmanager.daemon;

import io.micrometer.core.instrument.MeterRegistry;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.EventQueue;
import org.fabricmanager.daemon.discovery.FabricCheck;
import org.fabricmanager.daemon.discovery.FabricChecker;
import org.fabricmanager.daemon.discovery.LinkIssue;
import org.fabricmanager.daemon.discovery.NeighbourConflicts;
import org.fabricmanager.daemon.discovery.NodeOrdering;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.daemon.discovery.TopologyBuilder;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.push.PushRound;
import org.fabricmanager.daemon.push.SwitchPushState;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.routing.RoutingJob;
import org.fabricmanager.daemon.routing.RoutingOutcome;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.daemon.store.DestinationIndexMap;
import org.fabricmanager.daemon.store.FabricFingerprint;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.daemon.store.RoutingState;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.analysis.PathTracer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.Trace;
import org.fabricmanager.southbound.AgentSession;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.fabricmanager.southbound.MessageType;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.SouthboundListener;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's manager: the only code that changes fabric state, always on the control thread.
 * Southbound callbacks arrive on I/O threads and are turned into control events; the fabric is
 * rebuilt from the agents' reports when it changes (debounced with deferred events: a discovery
 * settle window, then a shorter routing settle window that coalesces bursts), routed on the routing
 * service, persisted, and pushed by the {@link LftPusher}. Queries (REST) run as control events too,
 * so they see a consistent state.
 */
public final class FabricController implements SouthboundListener, LftPusher.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(FabricController.class);
    private static final String DISCOVERY_SETTLE = "discovery-settle";
    private static final String DISCOVERY_DEADLINE = "discovery-deadline";
    private static final String REROUTE = "reroute";

    private final DaemonConfig config;
    private final EventQueue queue;
    private final RoutingService routing;
    private final IndexMapStore indexStore;
    private final RoutingStateStore routingStore;
    private final ExecutorService storeExecutor;
    private final NodeOrdering ordering;
    private final FabricChecker checker;
    private final MilestoneLog milestones;
    private final LftPusher pusher;
    private final long daemonId;
    private final PgftSpec expected;
    private final long startedNanos = System.nanoTime();
    private final Timer routingTimer;
    private final DaemonMetrics metrics;

    // control-thread state
    private final Map<Long, ManagedSwitch> switches = new HashMap<>();
    private DestinationIndexMap indices = new DestinationIndexMap();
    private RoutingState stored;
    private long nextVersion = 1;
    private Routed routed;
    private boolean routingRunning;
    private boolean rerouteScheduled;
    private boolean changedWhileRouting;
    private boolean discoveryDone;
    private long firstChangeNanos = -1;
    private long reactionStartNanos = System.nanoTime();
    private TopologyBuilder.Result lastDiscovery;
    private FabricCheck lastCheck = FabricCheck.notChecked();
    private String lastCheckSummary;
    private DaemonState state = DaemonState.DISCOVERING;
    private long computations;
    private volatile DaemonState publishedState = DaemonState.DISCOVERING;
    private boolean stopping;
    private PathTracer tracer;
    private long tracerVersion = -1;
    private long convergences;
    private final org.fabricmanager.daemon.faults.DaemonRing ring;
    private final Map<Long, Long> failedSwitches = new java.util.TreeMap<>(Long::compareUnsigned);
    private final Map<Long, String> failedNames = new HashMap<>();
    private Reaction reaction;
    private final org.fabricmanager.daemon.faults.FlapGuard flaps;
    private long reactions;

    /** Figures of one fault reaction, from its first event to convergence. */
    private static final class Reaction {
        final long startNanos = System.nanoTime();
        final List<String> triggers = new ArrayList<>();
        int triggerCount;
        int computations;
        double engineMs;
        long blocks;
        long bytes;
        PushRound lastRound;

        void trigger(String what) {
            triggerCount++;
            if (triggers.size() < 20) {
                triggers.add(what);
            }
        }

        void roundDone(PushRound r) {
            if (r != null) {
                blocks += r.blocks();
                bytes += r.bytes();
            }
        }
    }

    /** A switch with a session: before and after its PORT_INFO was accepted. */
    private static final class ManagedSwitch {
        final AgentSession session;
        final Hello hello;
        final SwitchPorts ports;
        final long connectedAtMillis = System.currentTimeMillis();
        boolean admitted;
        /** The ring incarnation of the switch's previous run when this session was told to join (-1: not). */
        long replacedRingIncarnation = -1;

        ManagedSwitch(AgentSession session, Hello hello) {
            this.session = session;
            this.hello = hello;
            this.ports = new SwitchPorts(hello.guid(), hello.name(), hello.portCount());
        }
    }

    /** The fabric the tables in force were computed for. */
    private record Routed(long version, Fabric fabric, String fingerprint, TableSet tables, String engine,
                          Double durationMs, boolean valid, long unreachablePairs, boolean reused) {
    }

    public FabricController(DaemonConfig config, EventQueue queue, RoutingService routing, IndexMapStore indexStore,
                            RoutingStateStore routingStore, ExecutorService storeExecutor, NodeOrdering ordering,
                            FabricChecker checker, MilestoneLog milestones, DaemonMetrics metrics, long daemonId) {
        this.config = config;
        this.queue = queue;
        this.routing = routing;
        this.indexStore = indexStore;
        this.routingStore = routingStore;
        this.storeExecutor = storeExecutor;
        this.ordering = ordering;
        this.checker = checker;
        this.milestones = milestones;
        this.daemonId = daemonId;
        this.metrics = metrics;
        MeterRegistry registry = metrics.registry();
        this.expected = config.fabric().expectedSpec();
        this.pusher = new LftPusher(config.push().ackTimeoutMs(), config.push().retries(), config.push().maxInFlight(),
                queue, registry, this);
        this.routingTimer = Timer.builder("fabric.routing.duration").description("routing computations")
                .register(registry);
        registry.gauge("fabric.switches.connected", this, c -> c.connectedCountVolatile);
        this.flaps = new org.fabricmanager.daemon.faults.FlapGuard(config.faults().flapThreshold(),
                config.faults().flapWindowMs(), config.faults().quarantineMs());
        this.ring = config.faults().detector().enabled()
                ? new org.fabricmanager.daemon.faults.DaemonRing(config.faults().detector(), daemonId, registry) : null;
    }

    // ---- faults (control thread) --------------------------------------------------------------

    /** A fault or recovery happened: it belongs to the current reaction (a new one when converged). */
    private void faultEvent(String what) {
        if (reaction == null) {
            reaction = new Reaction();
        }
        reaction.trigger(what);
        LOG.debug("fault event: {}", what);
    }

    private void onDetectorEvent(org.fabricmanager.detector.DetectorEvent event) {
        if (ring == null || !ring.active() || stopping) {
            return;
        }
        if (event instanceof org.fabricmanager.detector.DetectorEvent.MemberFailed f) {
            long guid = ring.guid(f.member());
            if (guid == daemonId || f.member() == 0) {
                return;
            }
            if (ring.unwatched(guid)) {
                LOG.debug("ring: switch {} declared dead, but it runs no ring member: ignored", Guids.format(guid));
                return;
            }
            ManagedSwitch current = switches.get(guid);
            if (current != null && f.incarnation() <= current.replacedRingIncarnation) {
                // the agent restarted faster than the ring noticed: the verdict is about its previous run
                LOG.info("ring: the previous run of switch {} ({}, ring incarnation {}) declared dead; its restarted "
                        + "agent is connected and joins the ring", Guids.format(guid), current.hello.name(), f.incarnation());
                return;
            }
            failedSwitches.put(guid, System.currentTimeMillis());
            ManagedSwitch ms = switches.get(guid);
            String name = ms == null ? Guids.format(guid) : Guids.format(guid) + " (" + ms.hello.name() + ")";
            if (ms != null) {
                failedNames.put(guid, ms.hello.name());
            }
            faultEvent("ring: switch " + name + " failed");
            metrics.fault(DaemonMetrics.FaultType.SWITCH);
            milestones.record(Milestone.Kind.SWITCH_FAILED, "failure detector: switch " + name
                    + " declared dead by the ring" + (ms != null && ms.admitted ? "; its session still looks alive: "
                    + "routing around it" : ""));
            if (ms != null) {
                // the daemon cannot manage a switch whose agent the ring declared dead: drop the session
                onClosed(ms.session, "declared dead by the failure detector");
                ms.session.close("declared dead by the failure detector");
            }
        } else if (event instanceof org.fabricmanager.detector.DetectorEvent.MemberRejoined r) {
            long guid = ring.guid(r.member());
            failedSwitches.remove(guid);
            faultEvent("ring: switch " + Guids.format(guid) + " rejoined");
            metrics.recovery(DaemonMetrics.FaultType.SWITCH);
            updateState();
        } else if (event instanceof org.fabricmanager.detector.DetectorEvent.LinkDown d) {
            // the reporter's own PORT_STATUS is ordered with its later changes, a broadcast is not (a late
            // LinkDown would undo a newer up); a reporter without a session is out of the fabric anyway
            LOG.debug("ring: link down at {} port {}", Guids.format(ring.guid(d.reporter())), d.port());
        } else if (event instanceof org.fabricmanager.detector.DetectorEvent.LinkUp u) {
            LOG.debug("ring: link up at {} port {} (applied when its PORT_STATUS arrives)",
                    Guids.format(ring.guid(u.reporter())), u.port());
        }
    }

    /** Applies flap quarantine to a port transition; false when the change must not move the fabric. */
    private boolean flapAllows(ManagedSwitch ms, int port, boolean up) {
        long guid = ms.hello.guid();
        switch (flaps.transition(guid, port, up, System.nanoTime())) {
            case QUARANTINED -> {
                milestones.record(Milestone.Kind.LINK_QUARANTINED, "link at " + ms.hello.name() + " port " + port
                        + " flaps (more than " + config.faults().flapThreshold() + " downs in "
                        + config.faults().flapWindowMs() + " ms): quarantined, kept down until it is up for "
                        + config.faults().quarantineMs() + " ms");
                return true;
            }
            case MASKED -> {
                if (up) {
                    queue.scheduleDeferred("quarantine " + Guids.format(guid) + "/" + port, flaps.quarantineMs(),
                            () -> releaseQuarantine(guid, port));
                }
                LOG.debug("{} port {} {} while quarantined: ignored", ms.hello.name(), port, up ? "up" : "down");
                return false;
            }
            default -> {
                return true;
            }
        }
    }

    /** A copy of {@code ports} with the quarantined ones down. */
    private SwitchPorts masked(SwitchPorts ports) {
        SwitchPorts copy = new SwitchPorts(ports.guid(), ports.name(), ports.portCount());
        for (int p = 1; p <= ports.portCount(); p++) {
            copy.update(flaps.isQuarantined(ports.guid(), p) ? PortRecord.down(p) : ports.port(p));
        }
        return copy;
    }

    private void releaseQuarantine(long guid, int port) {
        if (!flaps.releaseIfStable(guid, port, System.nanoTime())) {
            return;
        }
        ManagedSwitch ms = switches.get(guid);
        String name = ms == null ? Guids.format(guid) : ms.hello.name();
        milestones.record(Milestone.Kind.LINK_RELEASED, "link at " + name + " port " + port + " stable for "
                + config.faults().quarantineMs() + " ms: quarantine lifted");
        faultEvent("quarantine lifted: " + name + " port " + port);
        fabricChanged();
        updateState();
    }

    /** Plans the ring on the first routing, and again when switches outside it connected. */
    private void configureRing(Fabric fabric) {
        if (ring == null) {
            return;
        }
        boolean outside = !ring.active();
        for (ManagedSwitch ms : switches.values()) {
            if (ms.admitted && !ring.contains(ms.hello.guid())) {
                outside = true;
            }
        }
        if (!outside) {
            return;
        }
        List<Long> order = new ArrayList<>();
        Map<Long, java.net.InetAddress> addresses = new HashMap<>();
        for (long guid : org.fabricmanager.daemon.faults.RingOrder.of(fabric)) {
            ManagedSwitch ms = switches.get(guid);
            if (ms != null && ms.admitted && ms.session.remoteAddress() instanceof java.net.InetSocketAddress a) {
                order.add(guid);
                addresses.put(guid, a.getAddress());
            }
        }
        if (order.isEmpty()) {
            return;
        }
        ring.plan(order, addresses, event -> queue.append("detector " + event, () -> onDetectorEvent(event)));
        failedSwitches.clear();
        for (long guid : order) {
            sendDetectorConfig(switches.get(guid), false);
        }
        LOG.info("failure detector: ring epoch {} of {} members (the daemon and {} switches), eta {} ms, delta {} ms",
                ring.epoch(), ring.size(), order.size(), config.faults().detector().etaMs(),
                config.faults().detector().deltaMs());
    }

    private void sendDetectorConfig(ManagedSwitch ms, boolean join) {
        long guid = ms.hello.guid();
        long epoch = ring.epoch();
        AgentSession session = ms.session;
        session.sendDetectorConfig(ring.configFor(guid, join), ring.answerTimeoutMs()).thenAccept(reply ->
                queue.append("detector config answer " + Guids.format(guid), () -> {
                    // a session superseded by its restarted agent answers NO_ANSWER as it closes, after the
                    // new session took the GUID: only the new session's own answer counts
                    if (current(session) != null) {
                        onDetectorConfigAnswer(epoch, guid, reply);
                    }
                }));
    }

    private void onDetectorConfigAnswer(long epoch, long guid, org.fabricmanager.southbound.DetectorConfigReply reply) {
        if (ring == null || stopping) {
            return;
        }
        ManagedSwitch ms = switches.get(guid);
        String name = ms == null ? Guids.format(guid) : ms.hello.name();
        if (epoch == ring.epoch() && reply.outcome() == org.fabricmanager.southbound.DetectorConfigReply.Outcome.NO_DETECTOR) {
            LOG.warn("failure detector: switch {} ({}) runs no ring member ({}): its faults are known only through "
                    + "its session and its neighbours' port status", Guids.format(guid), name, reply.detail());
        } else if (epoch == ring.epoch() && !reply.running()) {
            LOG.warn("failure detector: switch {} ({}) did not answer its ring configuration ({}); the ring still "
                    + "watches it", Guids.format(guid), name, reply.detail());
        }
        if (ring.answered(epoch, guid, reply)) {
            Map<Long, String> unwatched = ring.unwatchedSwitches();
            milestones.record(Milestone.Kind.DETECTOR_RUNNING, String.format("failure detector: ring epoch %d running, "
                    + "%d of %d switches watched%s", epoch, ring.size() - 1 - unwatched.size(), ring.size() - 1,
                    unwatched.isEmpty() ? "" : " (" + unwatched.size() + " without a running member: see /api/v1/faults)"));
        }
    }

    /** Forces a re-route (REST); the answer says whether one was started. */
    String forceReroute() {
        if (!discoveryDone) {
            return "discovery has not finished: routing starts on its own";
        }
        faultEvent("operator: forced re-route");
        routed = null == routed ? null : new Routed(routed.version(), routed.fabric(), "forced", routed.tables(),
                routed.engine(), routed.durationMs(), routed.valid(), routed.unreachablePairs(), routed.reused());
        fabricChanged();
        updateState();
        return "re-route scheduled";
    }

    org.fabricmanager.daemon.faults.FaultReport faults() {
        List<org.fabricmanager.daemon.faults.FaultReport.SwitchFault> sf = new ArrayList<>();
        for (Map.Entry<Long, Long> e : failedSwitches.entrySet()) {
            ManagedSwitch ms = switches.get(e.getKey());
            String name = failedNames.getOrDefault(e.getKey(), "");
            sf.add(new org.fabricmanager.daemon.faults.FaultReport.SwitchFault(Guids.format(e.getKey()), name,
                    "ring", e.getValue(), ms != null && ms.admitted));
        }
        List<org.fabricmanager.daemon.faults.FaultReport.LinkFault> lf = new ArrayList<>();
        if (routed != null) {
            Fabric f = routed.fabric();
            for (ManagedSwitch ms : switches.values()) {
                if (!ms.admitted) {
                    continue;
                }
                for (int p = 1; p <= ms.ports.portCount(); p++) {
                    boolean q = flaps.isQuarantined(ms.hello.guid(), p);
                    if (!ms.ports.port(p).isUp() || q) {
                        long peer = baselinePeer(ms.hello.guid(), p);
                        if (peer != 0) {
                            lf.add(new org.fabricmanager.daemon.faults.FaultReport.LinkFault(Guids.format(ms.hello.guid()),
                                    ms.hello.name(), p, Guids.format(peer), q));
                        }
                    }
                }
            }
        }
        List<org.fabricmanager.daemon.faults.FaultReport.Unwatched> unwatched = new ArrayList<>();
        if (ring != null) {
            for (Map.Entry<Long, String> u : ring.unwatchedSwitches().entrySet()) {
                ManagedSwitch ms = switches.get(u.getKey());
                unwatched.add(new org.fabricmanager.daemon.faults.FaultReport.Unwatched(Guids.format(u.getKey()),
                        ms == null ? "" : ms.hello.name(), u.getValue()));
            }
        }
        return new org.fabricmanager.daemon.faults.FaultReport(ring != null && ring.active(),
                ring == null ? 0 : ring.epoch(), ring == null ? 0 : ring.size(), sf, lf, flaps.quarantined(), reactions,
                reaction == null ? 0 : reaction.triggerCount, ring == null ? 0 : ring.awaitingAnswers(), unwatched);
    }

    private final Map<Long, long[]> baselinePeers = new HashMap<>();

    /** The peer GUID at (guid, port) in the first routed fabric (0: none), so a down port can name its link. */
    private long baselinePeer(long guid, int port) {
        long[] peers = baselinePeers.get(guid);
        return peers == null || port >= peers.length ? 0 : peers[port];
    }

    private void rememberBaseline(Fabric fabric) {
        for (org.fabricmanager.topology.Link l : fabric.links()) {
            remember(l.a(), l.aPort(), l.b());
            remember(l.b(), l.bPort(), l.a());
        }
    }

    private void remember(long guid, int port, long peer) {
        long[] peers = baselinePeers.computeIfAbsent(guid, g -> new long[256]);
        if (port < peers.length) {
            peers[port] = peer;
        }
    }

    private volatile int connectedCountVolatile;

    /** Loads the state directory (on the control thread). */
    void loadState() {
        indices = indexStore.load();
        try {
            stored = routingStore.load().orElse(null);
        } catch (StoreException e) {
            LOG.warn("ignoring stored routing: {}", e.getMessage());
            stored = null;
        }
        if (stored != null) {
            nextVersion = stored.version() + 1;
            LOG.info("state directory: {} destination indices, stored routing v{} ({} switches, fingerprint {})",
                    indices.size(), stored.version(), stored.tables().switchCount(), stored.fingerprint().substring(0, 12));
        } else {
            LOG.info("state directory: {} destination indices, no stored routing", indices.size());
        }
    }

    /** From now on, lost sessions are the daemon's own doing: no milestones, no re-routing. */
    void stopping() {
        stopping = true;
        if (ring != null) {
            ring.close();
        }
        queue.cancelDeferred(REROUTE);
        queue.cancelDeferred(DISCOVERY_SETTLE);
        queue.cancelDeferred(DISCOVERY_DEADLINE);
    }

    /** The state as last published by the control thread (any thread). */
    public DaemonState state() {
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

    // ---- handlers (control thread) ------------------------------------------------------------

    private void onHello(AgentSession session, Hello hello) {
        ManagedSwitch existing = switches.get(hello.guid());
        if (existing != null) {
            int order = Long.compareUnsigned(hello.incarnation(), existing.hello.incarnation());
            if (order < 0) {
                // an older run than the one holding the session: a second device configured with the same GUID
                session.reject(ErrorCode.DUPLICATE_GUID, hello, "switch " + Guids.format(hello.guid())
                        + " is already connected (" + existing.session + ", incarnation "
                        + Long.toUnsignedString(existing.hello.incarnation()) + "); incarnation "
                        + Long.toUnsignedString(hello.incarnation()) + " is lower, so it cannot take it over");
                return;
            }
            takeOver(existing, session, hello, order == 0);
        }
        switches.put(hello.guid(), new ManagedSwitch(session, hello));
        session.acceptHello(daemonId);
    }

    /**
     * A restarted agent (higher incarnation), or the same run reconnecting (equal incarnation: it gave
     * the old connection up, e.g. after a network outage longer than its echo timeout), supersedes the
     * session still held for it, typically a connection whose end died without a FIN, which the idle
     * timeout would only notice much later. The old session is closed exactly as any lost session is
     * (out of the fabric, detached from the pusher); its own close event, and any report of it still
     * queued, come later and are ignored by {@link #current}, since the GUID then belongs to the new
     * session.
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
                    + "(incarnation " + Long.toUnsignedString(old.hello.incarnation()) + " -> " + incarnation
                    + "): took over its session");
        }
        onClosed(old.session, reason);
        old.session.reject(ErrorCode.SUPERSEDED, null, "switch " + guid + ": " + reason);
    }

    /** The switch whose session {@code session} is, or {@code null} when the session is no longer its switch's. */
    private ManagedSwitch current(AgentSession session) {
        ManagedSwitch ms = switches.get(session.guid());
        return ms != null && ms.session == session ? ms : null;
    }

    private Map<Long, SwitchPorts> admittedPorts(long except) {
        Map<Long, SwitchPorts> map = new HashMap<>(switches.size() * 2);
        for (ManagedSwitch ms : switches.values()) {
            if (ms.admitted && ms.hello.guid() != except) {
                map.put(ms.hello.guid(), ms.ports);
            }
        }
        return map;
    }

    private void onPortInfo(AgentSession session, PortInfo info) {
        ManagedSwitch ms = current(session);
        if (ms == null) {
            return;
        }
        long guid = ms.hello.guid();
        Optional<String> conflict = NeighbourConflicts.find(guid, info.ports(), admittedPorts(guid));
        if (conflict.isPresent()) {
            refuse(ms, info, conflict.get());
            return;
        }
        boolean changed = false;
        for (PortRecord r : info.ports()) {
            changed |= ms.ports.update(r);
        }
        session.acknowledge(info.txid(), MessageType.PORT_INFO);
        if (!ms.admitted) {
            ms.admitted = true;
            connectedCountVolatile = admittedCount();
            pusher.attach(guid, ms.hello.name(), session, ms.hello);
            if (discoveryDone) {
                faultEvent("switch " + ms.hello.name() + " connected");
            }
            if (ring != null && ring.active() && ring.contains(guid)) {
                // a restarted agent joins the running ring, above the incarnation of its previous run
                ms.replacedRingIncarnation = ring.incarnation(guid);
                sendDetectorConfig(ms, true);
            }
            milestones.record(Milestone.Kind.SWITCH_CONNECTED, "switch " + Guids.format(guid) + " (" + ms.hello.name()
                    + ") connected from " + session.remoteAddress() + ", " + ms.ports.portsUp() + "/"
                    + ms.hello.portCount() + " ports up, holding table v" + ms.hello.tableVersion());
            changed = true;
        }
        if (changed) {
            fabricChanged();
        }
        updateState();
    }

    private void onPortStatus(AgentSession session, PortStatus status) {
        ManagedSwitch ms = current(session);
        if (ms == null || !ms.admitted) {
            return;
        }
        long guid = ms.hello.guid();
        Optional<String> conflict = NeighbourConflicts.find(guid, status.ports(), admittedPorts(guid));
        if (conflict.isPresent()) {
            refuse(ms, status, conflict.get());
            return;
        }
        boolean changed = false;
        for (PortRecord r : status.ports()) {
            boolean wasUp = ms.ports.port(r.port()).isUp();
            if (ms.ports.update(r)) {
                if (discoveryDone && wasUp != r.isUp() && !flapAllows(ms, r.port(), r.isUp())) {
                    continue;
                }
                changed = true;
                if (discoveryDone) {
                    faultEvent("port-status: " + ms.hello.name() + " port " + r.port() + (r.isUp() ? " up" : " down"));
                    if (wasUp != r.isUp()) {
                        if (r.isUp()) {
                            metrics.recovery(DaemonMetrics.FaultType.LINK);
                        } else {
                            metrics.fault(DaemonMetrics.FaultType.LINK);
                        }
                    }
                }
                LOG.debug("{} ({}): {}", Guids.format(guid), ms.hello.name(), r);
            }
        }
        if (changed) {
            fabricChanged();
            updateState();
        }
    }

    private void refuse(ManagedSwitch ms, org.fabricmanager.southbound.Message about, String conflict) {
        long guid = ms.hello.guid();
        LOG.warn("switch {} ({}): neighbour conflict: {}; closing its session, the confirmed link is kept",
                Guids.format(guid), ms.hello.name(), conflict);
        switches.remove(guid);
        if (ms.admitted) {
            pusher.detach(guid);
            connectedCountVolatile = admittedCount();
            fabricChanged();
        }
        ms.session.reject(ErrorCode.NEIGHBOUR_CONFLICT, about, conflict);
        updateState();
    }

    private void onClosed(AgentSession session, String reason) {
        ManagedSwitch ms = current(session);
        if (ms == null) {
            return;
        }
        long guid = ms.hello.guid();
        switches.remove(guid);
        if (stopping) {
            return;
        }
        if (ms.admitted) {
            pusher.detach(guid);
            connectedCountVolatile = admittedCount();
            if (discoveryDone) {
                faultEvent("switch " + ms.hello.name() + " disconnected");
            }
            milestones.record(Milestone.Kind.SWITCH_LOST, "switch " + Guids.format(guid) + " (" + ms.hello.name()
                    + ") disconnected: " + reason);
            if (admittedCount() == 0 && discoveryDone) {
                // every agent is gone (daemon network cut, mass restart): rediscover before routing again,
                // instead of routing each partial fabric as agents come back one by one
                LOG.warn("every switch disconnected; keeping tables{} and discovering again",
                        routed == null ? "" : " v" + routed.version());
                discoveryDone = false;
                firstChangeNanos = -1;
                queue.cancelDeferred(REROUTE);
                rerouteScheduled = false;
                updateState();
                return;
            }
            fabricChanged();
        }
        updateState();
    }

    private int admittedCount() {
        int n = 0;
        for (ManagedSwitch ms : switches.values()) {
            if (ms.admitted) {
                n++;
            }
        }
        return n;
    }

    // ---- discovery and routing ----------------------------------------------------------------

    private void fabricChanged() {
        long now = System.nanoTime();
        if (state == DaemonState.CONVERGED) {
            reactionStartNanos = now;
        }
        if (!discoveryDone) {
            if (firstChangeNanos < 0) {
                firstChangeNanos = now;
                queue.scheduleDeferred(DISCOVERY_DEADLINE, config.discovery().maxWaitMs(),
                        () -> discoverySettled("maximum discovery wait reached"));
            }
            if (expected != null && admittedCount() >= expected.totalSwitchCount() && expectedFabricComplete()) {
                discoverySettled("every expected switch and link is present");
                return;
            }
            queue.scheduleDeferred(DISCOVERY_SETTLE, config.discovery().settleMs(),
                    () -> discoverySettled("no change for " + config.discovery().settleMs() + " ms"));
            return;
        }
        if (routingRunning) {
            changedWhileRouting = true;
            return;
        }
        if (!rerouteScheduled) {
            rerouteScheduled = true;
            queue.scheduleDeferred(REROUTE, reaction != null ? config.faults().settleMs() : config.routing().settleMs(),
                    this::reroute);
        }
    }

    private boolean expectedFabricComplete() {
        TopologyBuilder.Result r = TopologyBuilder.build(admittedSwitchPorts(), new DestinationIndexMap(), expected,
                ordering);
        return r.fabric().links().size() >= expected.totalLinkCount()
                && checker.check(r.fabric(), expected).verdict() == FabricCheck.Verdict.INTACT;
    }

    private Collection<SwitchPorts> admittedSwitchPorts() {
        List<SwitchPorts> list = new ArrayList<>(switches.size());
        for (ManagedSwitch ms : switches.values()) {
            if (ms.admitted) {
                list.add(flaps.hasQuarantined(ms.hello.guid()) ? masked(ms.ports) : ms.ports);
            }
        }
        return list;
    }

    private void discoverySettled(String why) {
        if (discoveryDone) {
            return;
        }
        queue.cancelDeferred(DISCOVERY_SETTLE);
        queue.cancelDeferred(DISCOVERY_DEADLINE);
        discoveryDone = true;
        LOG.debug("discovery settled: {}", why);
        route();
    }

    private void reroute() {
        rerouteScheduled = false;
        if (routingRunning) {
            changedWhileRouting = true;
            return;
        }
        route();
    }

    /** Rebuilds the fabric from the reports and routes it unless the routed fabric is the same. */
    private void route() {
        TopologyBuilder.Result discovery = TopologyBuilder.build(admittedSwitchPorts(), indices, expected, ordering);
        if (discovery.newIndices() > 0) {
            try {
                indexStore.save(indices);
                LOG.info("assigned {} new destination indices in topological order ({} in {})", discovery.newIndices(),
                        indices.size(), indexStore.file());
            } catch (StoreException e) {
                LOG.error("assigned {} new destination indices but cannot store them ({}); routing anyway, but they "
                        + "may change after a restart", discovery.newIndices(), e.getMessage());
            }
        }
        lastDiscovery = discovery;
        Fabric fabric = discovery.fabric();
        if (baselinePeers.isEmpty()) {
            rememberBaseline(fabric);
        }
        if (!fabric.switches().isEmpty()) {
            configureRing(fabric);
        }
        lastCheck = expected == null ? FabricCheck.notChecked() : checker.check(fabric, expected);
        String summary = describe(fabric) + (expected == null ? "" : "; " + lastCheck.summary())
                + (discovery.issues().isEmpty() ? "" : "; " + discovery.issues().size() + " port claims not taken");
        if (!summary.equals(lastCheckSummary)) {
            milestones.record(routed == null && lastCheckSummary == null ? Milestone.Kind.FABRIC_DISCOVERED
                    : Milestone.Kind.FABRIC_CHANGED, (lastCheckSummary == null ? "fabric discovered: " : "fabric changed: ")
                    + summary);
            lastCheckSummary = summary;
            for (int i = 0; i < Math.min(5, discovery.issues().size()); i++) {
                LOG.info("  not a link: {}", discovery.issues().get(i));
            }
        }
        if (fabric.switches().isEmpty()) {
            LOG.warn("no switch is connected{}", routed == null ? "" : ": keeping tables v" + routed.version());
            updateState();
            return;
        }
        String engine = routing.engineName();
        String fingerprint = FabricFingerprint.of(fabric, engine);
        if (routed != null && routed.fingerprint().equals(fingerprint)) {
            LOG.debug("fabric unchanged since v{}: nothing to route", routed.version());
            updateState();
            return;
        }
        if (routed == null && stored != null && stored.fingerprint().equals(fingerprint) && stored.engine().equals(engine)) {
            TableSet tables = new TableSet(stored.version(), stored.tables());
            routed = new Routed(stored.version(), fabric, fingerprint, tables, engine, null, true, 0, true);
            milestones.record(Milestone.Kind.ROUTING_REUSED, "routing v" + stored.version()
                    + " reused from the state directory (fabric unchanged): no recomputation");
            stored = null;
            startPush(tables);
            return;
        }
        long version = nextVersion++;
        routingRunning = true;
        changedWhileRouting = false;
        updateState();
        RoutingJob job = new RoutingJob(version, fabric, fingerprint);
        routing.route(job).whenComplete((outcome, error) -> queue.append("routing-done v" + version,
                () -> routingDone(job, outcome, error)));
    }

    private static String describe(Fabric f) {
        int switchLinks = 0;
        for (org.fabricmanager.topology.Link l : f.links()) {
            if (f.isSwitch(l.a()) && f.isSwitch(l.b())) {
                switchLinks++;
            }
        }
        return f.switches().size() + " switches, " + f.nodes().size() + " nodes, " + switchLinks
                + " switch-to-switch links";
    }

    private void routingDone(RoutingJob job, RoutingOutcome outcome, Throwable error) {
        routingRunning = false;
        if (error != null) {
            Throwable cause = error.getCause() != null ? error.getCause() : error;
            milestones.record(Milestone.Kind.ROUTING_FAILED, "routing v" + job.version() + " failed: " + cause.getMessage()
                    + (routed == null ? "" : "; keeping v" + routed.version()));
        } else {
            RoutingResult r = outcome.result();
            computations++;
            if (reaction != null) {
                reaction.computations++;
                reaction.engineMs += outcome.millis();
            }
            routingTimer.record(outcome.nanos(), TimeUnit.NANOSECONDS);
            TableSet tables = new TableSet(job.version(), r.tables());
            routed = new Routed(job.version(), job.fabric(), job.fingerprint(), tables, r.engine(), outcome.millis(),
                    r.validity().isValid(), r.validity().unreachablePairs(), false);
            milestones.record(Milestone.Kind.ROUTING_COMPUTED, String.format("routing v%d computed in %.1f ms (%s, %s)",
                    job.version(), outcome.millis(), r.engine(), r.validity().isValid() ? "valid"
                            : r.validity().unreachablePairs() + " unreachable leaf pairs"));
            stored = null;
            RoutingState toStore = new RoutingState(job.fingerprint(), job.version(), r.engine(), r.tables());
            storeExecutor.execute(() -> {
                try {
                    routingStore.save(toStore);
                } catch (StoreException e) {
                    LOG.error("cannot store routing v{}: {}", toStore.version(), e.getMessage());
                }
            });
            startPush(tables);
        }
        if (changedWhileRouting) {
            changedWhileRouting = false;
            rerouteScheduled = true;
            queue.scheduleDeferred(REROUTE, config.routing().settleMs(), this::reroute);
        }
        updateState();
    }

    private void startPush(TableSet tables) {
        if (reaction != null) {
            reaction.roundDone(reaction.lastRound);
        }
        pusher.install(tables);
        PushRound round = pusher.round();
        if (reaction != null) {
            reaction.lastRound = round;
        }
        if (pusher.pendingCount() > 0) {
            milestones.record(Milestone.Kind.PUSH_STARTED, "pushing v" + tables.version() + " to "
                    + pusher.pendingCount() + " switches (" + round.blocks() + " blocks, " + round.bytes() + " bytes)");
        }
        updateState();
    }

    private void updateState() {
        DaemonState next;
        if (routingRunning || rerouteScheduled) {
            next = DaemonState.ROUTING;
        } else if (routed == null || admittedCount() == 0) {
            next = DaemonState.DISCOVERING;
        } else if (pusher.pendingCount() > 0 || !allAdmittedRouted()) {
            next = DaemonState.PUSHING;
        } else {
            next = DaemonState.CONVERGED;
        }
        if (next == DaemonState.CONVERGED && state != DaemonState.CONVERGED) {
            PushRound round = pusher.round();
            convergences++;
            milestones.record(Milestone.Kind.CONVERGED, String.format(
                    "tables converged: v%d on %d/%d switches, %.0f ms after %s (%d blocks, %d bytes, %d retries)",
                    routed.version(), pusher.inSyncCount(), admittedCount(), (System.nanoTime() - reactionStartNanos) / 1e6,
                    convergences == 1 ? "start" : "the first change",
                    round == null ? 0 : round.blocks(), round == null ? 0 : round.bytes(), round == null ? 0 : round.retries()));
            if (reaction != null) {
                finishReaction();
            }
        } else if (next == DaemonState.CONVERGED && reaction != null) {
            // Converged all along: the events needed no new tables (a rejoin whose session is not back
            // yet, a change already undone). Left open, the reaction would swallow the next, unrelated
            // fault and report its fault-to-converged time from these events.
            LOG.debug("fault events without a table change: {}", reaction.triggers);
            reaction = null;
        }
        state = next;
        publishedState = next;
    }

    private void finishReaction() {
        Reaction r = reaction;
        reaction = null;
        PushRound last = pusher.round();
        r.roundDone(last);
        reactions++;
        double ms = (System.nanoTime() - r.startNanos) / 1e6;
        Map<String, Object> d = new java.util.LinkedHashMap<>();
        d.put("triggerCount", r.triggerCount);
        d.put("triggers", List.copyOf(r.triggers));
        d.put("computations", r.computations);
        d.put("engineMs", Math.round(r.engineMs * 10) / 10.0);
        d.put("blocksPushed", r.blocks);
        d.put("bytesPushed", r.bytes);
        d.put("switchesAcked", last == null ? 0 : last.acked());
        d.put("tableVersion", routed.version());
        d.put("faultToConvergedMs", Math.round(ms * 10) / 10.0);
        metrics.faultToConverged(ms);
        milestones.record(Milestone.Kind.REACTION, String.format("fault reaction: %d events (%s%s), %d routing "
                        + "computations (%.1f ms), %d blocks / %d bytes pushed, %d switches acked, converged %.1f ms after "
                        + "the first event", r.triggerCount, r.triggers.get(0), r.triggerCount > 1 ? ", ..." : "",
                r.computations, r.engineMs, r.blocks, r.bytes, last == null ? 0 : last.acked(), ms), d);
    }

    private boolean allAdmittedRouted() {
        for (ManagedSwitch ms : switches.values()) {
            if (ms.admitted && routed.tables().row(ms.hello.guid()) < 0) {
                return false;
            }
        }
        return true;
    }

    // ---- queries (control thread, through EventQueue.call) -------------------------------------

    Views.Status status() {
        Views.Routing r = routed == null
                ? new Views.Routing(routing.engineName(), 0, null, null, null, computations, null)
                : new Views.Routing(routed.engine(), routed.version(), routed.durationMs(), routed.valid(),
                        routed.unreachablePairs(), computations, routed.reused());
        PushRound round = pusher.round();
        Views.Push push = new Views.Push(round == null ? 0 : round.version(), round == null ? 0 : round.blocks(),
                round == null ? 0 : round.bytes(), round == null ? 0 : round.commits(), round == null ? 0 : round.acked(),
                round == null ? 0 : round.retries(), round == null ? 0 : round.fullPushes(),
                round == null || round.completedNanos() < 0 ? null : round.durationMs(), pusher.totalBlocks(),
                pusher.totalBytes(), pusher.totalRetries());
        Views.Discovery d = new Views.Discovery(lastCheck.verdict().name(), lastCheck.summary(),
                lastDiscovery == null ? 0 : lastDiscovery.issues().size());
        int nodes = routed != null ? routed.fabric().nodes().size()
                : lastDiscovery != null ? lastDiscovery.fabric().nodes().size() : 0;
        return new Views.Status(state, new Views.SwitchCounts(expected == null ? null : expected.totalSwitchCount(),
                admittedCount()), nodes, r, new Views.Tables(pusher.inSyncCount(), pusher.pendingCount(),
                pusher.failingCount()), push, d,
                (System.nanoTime() - startedNanos) / 1_000_000, Guids.format(daemonId),
                Views.Build.of(org.fabricmanager.release.BuildInfo.current()));
    }

    /** The routed fabric (with the destination indices in use), or the last discovered one before routing. */
    Fabric topology() {
        if (routed != null) {
            return routed.fabric();
        }
        return lastDiscovery == null ? null : lastDiscovery.fabric();
    }

    Views.DiscoveryReport discovery() {
        List<String> issues = new ArrayList<>();
        int count = 0;
        if (lastDiscovery != null) {
            count = lastDiscovery.issues().size();
            for (LinkIssue i : lastDiscovery.issues()) {
                if (issues.size() >= 1000) {
                    break;
                }
                issues.add(i.toString());
            }
        }
        return new Views.DiscoveryReport(lastCheck, count, issues);
    }

    List<Views.Switch> switchList() {
        Map<Long, Views.Switch> out = new java.util.TreeMap<>(Long::compareUnsigned);
        if (routed != null) {
            for (FabricSwitch s : routed.fabric().switches()) {
                out.put(s.guid(), new Views.Switch(Guids.format(s.guid()), s.name(), false, null, s.ports(), null, null,
                        false, null, null));
            }
        }
        for (ManagedSwitch ms : switches.values()) {
            if (ms.admitted) {
                out.put(ms.hello.guid(), summary(ms));
            }
        }
        return new ArrayList<>(out.values());
    }

    private Views.Switch summary(ManagedSwitch ms) {
        SwitchPushState p = pusher.state(ms.hello.guid());
        long rtt = ms.session.lastRttNanos();
        return new Views.Switch(Guids.format(ms.hello.guid()), ms.hello.name(), true, String.valueOf(ms.session.remoteAddress()),
                ms.hello.portCount(), ms.ports.portsUp(), p == null ? null : p.heldVersion(), p != null && p.inSync(),
                rtt < 0 ? null : rtt / 1e6, ms.connectedAtMillis);
    }

    /** Details of one switch, or {@code null} when the daemon does not know it. */
    Views.SwitchDetail switchDetail(long guid) {
        ManagedSwitch ms = switches.get(guid);
        if (ms == null || !ms.admitted) {
            if (routed != null) {
                Optional<FabricSwitch> s = routed.fabric().switchByGuid(guid);
                if (s.isPresent()) {
                    return new Views.SwitchDetail(Guids.format(guid), s.get().name(), false, null, s.get().ports(), null,
                            null, null, false, null, null, null, null, null, List.of());
                }
            }
            return null;
        }
        SwitchPushState p = pusher.state(guid);
        List<Views.Port> ports = new ArrayList<>();
        FabricIndex index = routed == null ? null : routed.fabric().index();
        int id = index == null ? FabricIndex.NONE : index.switchId(guid);
        for (int port = 1; port <= ms.ports.portCount(); port++) {
            PortRecord r = ms.ports.port(port);
            String link;
            if (!r.isUp()) {
                link = "DOWN";
            } else if (id == FabricIndex.NONE || port > index.switchPorts(id)) {
                link = "NOT_ROUTED";
            } else if (index.peerSwitches(id)[port] != FabricIndex.NONE || index.peerNodes(id)[port] != FabricIndex.NONE) {
                link = "IN_USE";
            } else {
                link = r.peerKind() == PortRecord.PeerKind.NONE ? "NO_PEER" : "NOT_TAKEN";
            }
            ports.add(new Views.Port(port, r.state().name(), r.peerKind().name(),
                    r.peerKind() == PortRecord.PeerKind.NONE ? null : Guids.format(r.peerGuid()),
                    r.peerKind() == PortRecord.PeerKind.NONE ? null : r.peerPort(),
                    r.peerName().isEmpty() ? null : r.peerName(), link));
        }
        long rtt = ms.session.lastRttNanos();
        return new Views.SwitchDetail(Guids.format(guid), ms.hello.name(), true, String.valueOf(ms.session.remoteAddress()),
                ms.hello.portCount(), ms.ports.portsUp(), p == null ? null : p.heldVersion(),
                p == null ? null : Guids.format(p.heldHash()), p != null && p.inSync(), rtt < 0 ? null : rtt / 1e6,
                ms.connectedAtMillis, ms.hello.incarnation(), p == null ? null : p.retries(),
                p == null ? null : p.lastError(), ports);
    }

    /** The current table of a switch, or {@code null} when it has none. */
    Views.Lft lft(long guid) {
        if (routed == null) {
            return null;
        }
        TableSet t = routed.tables();
        int row = t.row(guid);
        if (row < 0) {
            return null;
        }
        int[] entries = new int[t.length()];
        for (int d = 0; d < entries.length; d++) {
            entries[d] = t.tables().port(row, d);
        }
        SwitchPushState p = pusher.state(guid);
        return new Views.Lft(Guids.format(guid), t.version(), p == null ? null : p.heldVersion(), p != null && p.inSync(),
                entries);
    }

    /**
     * The route from {@code src} to {@code dst} through the tables in force.
     *
     * @throws IllegalStateException before the first routing
     * @throws IllegalArgumentException when an index names no node, or both name the same node
     */
    Views.Route route(int src, int dst) {
        if (routed == null) {
            throw new IllegalStateException("no tables yet (state " + state + ")");
        }
        FabricIndex index = routed.fabric().index();
        if (tracer == null || tracerVersion != routed.version()) {
            tracer = new PathTracer(RoutedFabric.of(index, routed.tables().tables()));
            tracerVersion = routed.version();
        }
        Trace r = tracer.trace(src, dst);
        List<Views.Hop> hops = new ArrayList<>(r.hops().size());
        for (Trace.Hop h : r.hops()) {
            hops.add(new Views.Hop(Guids.format(h.switchGuid()), routed.fabric().switchByGuid(h.switchGuid())
                    .map(FabricSwitch::name).orElse(""), h.outPort()));
        }
        EndNode s = routed.fabric().nodeByGuid(index.nodeGuid(index.nodeByDestination(src))).orElseThrow();
        EndNode d = routed.fabric().nodeByGuid(index.nodeGuid(index.nodeByDestination(dst))).orElseThrow();
        return new Views.Route(src, dst, Guids.format(s.guid()), Guids.format(d.guid()), routed.version(),
                r.outcome().name(), hops);
    }

    List<Milestone> milestonesSince(long seq) {
        return milestones.since(seq);
    }

    /** Routing computations since start (0 when stored routing was reused). */
    long computations() {
        return computations;
    }
}
