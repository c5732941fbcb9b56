package org.fabricmanager.daemon.faults;

import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.store.QuarantineStore;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.southbound.DetectorConfigReply;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.Set;

/**
 * The daemon's reaction to faults beyond what the agents' reports say by themselves: the ring failure
 * detector (planning the ring, configuring the agents' members, acting on the daemon member's verdicts),
 * flap quarantine of ports, the switches declared dead, and the figures of each reaction
 * ({@link ReactionTracker}). It reads the switch registry and acts on the rest of the daemon only through
 * {@link FaultActions}, so the control loop depends on it and not the other way round. Runs on the
 * control thread.
 */
public final class FaultManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FaultManager.class);

    private DaemonConfig.Faults settings; // re-tuned by a reload (control thread)
    /** The first routed fabric, kept with {@link #baselinePeers}. */
    private Fabric baseline;
    private final long daemonId;
    private final ControlLoop queue;
    private final SwitchRegistry registry;
    private final MilestoneLog milestones;
    private final DaemonMetrics metrics;
    private final FaultActions actions;
    private final FlapGuard flaps;
    private final RingCoordinator ring;
    private final ReactionTracker reactions;
    /** Ring verdicts waiting for the accused switch's session to answer (Lifeguard's second opinion). */
    private final SecondOpinion opinions;
    /** Echoes sent when the ring began suspecting a switch, before any verdict. */
    private final EarlyEchoes earlyEchoes;
    /** Switches the ring declared dead and that have not rejoined, with when. */
    private final Map<Long, Long> failedSwitches = new TreeMap<>(Long::compareUnsigned);
    private final Map<Long, String> failedNames = new HashMap<>();
    /** The peer GUID at (guid, port) in the first routed fabric, so a down port can name its link. */
    private final Map<Long, long[]> baselinePeers = new HashMap<>();
    private final LongSupplier nanoTime;
    /** Where the quarantine is kept for the next manager, {@code null}: nowhere (tests). */
    private final QuarantineStore quarantineStore;
    private boolean stopping;
    /**
     * The expected PGFT's switches in ring order ({@code fabric.expectedPgft}), or {@code null}: when the fabric uses
     * its canonical GUIDs, the ring is planned over all of them and a switch that connects late takes its slot.
     */
    private List<Long> expectedOrder;
    private Set<Long> expectedGuids = Set.of();
    /** The newest fabric {@link #planRing} was given: what a replan deferred by {@link #replanIntervalMs} plans. */
    private Fabric latestFabric;
    /** When the current epoch was planned ({@link #nanoTime}), to batch replans. */
    private long plannedAtNanos;
    private boolean replanScheduled;
    static final String REPLAN = "detector-replan";
    /**
     * Whether the first ring may be planned: once the first tables converged, or {@link #FIRST_PUSH_WAIT_MS} after
     * the first routing. Until then the agents take their tables without starting members and asking for their
     * peers' addresses at the same moment (5,120 members ask for about 130,000 addresses as they start).
     */
    private boolean firstTablesInPlace;
    private boolean firstPlanScheduled;
    static final String FIRST_PLAN = "detector-first-plan";
    /** How long the first ring waits for the first push to converge before it starts anyway. */
    static final long FIRST_PUSH_WAIT_MS = 30_000;
    /** Told when an epoch's start ends: its last awaited answer came, or the wait for it ended. */
    private Runnable ringStarted = () -> { };

    public FaultManager(DaemonConfig.Faults settings, long daemonId, ControlLoop queue, SwitchRegistry registry,
                        MilestoneLog milestones, DaemonMetrics metrics, FaultActions actions) {
        this(settings, daemonId, queue, registry, milestones, metrics, actions, System::nanoTime, null);
    }

    /**
     * As above, with the flap quarantine kept in {@code quarantine}: the ports it holds are quarantined from
     * the start, and every quarantine and release is written to it.
     *
     * @throws org.fabricmanager.daemon.store.StoreException when the stored quarantine is damaged
     */
    public FaultManager(DaemonConfig.Faults settings, long daemonId, ControlLoop queue, SwitchRegistry registry,
                        MilestoneLog milestones, DaemonMetrics metrics, FaultActions actions, QuarantineStore quarantine) {
        this(settings, daemonId, queue, registry, milestones, metrics, actions, System::nanoTime, quarantine);
    }

    /** As the public constructor, with the clock flap quarantine measures time by (tests drive it). */
    FaultManager(DaemonConfig.Faults settings, long daemonId, ControlLoop queue, SwitchRegistry registry,
                 MilestoneLog milestones, DaemonMetrics metrics, FaultActions actions, LongSupplier nanoTime) {
        this(settings, daemonId, queue, registry, milestones, metrics, actions, nanoTime, null);
    }

    FaultManager(DaemonConfig.Faults settings, long daemonId, ControlLoop queue, SwitchRegistry registry,
                 MilestoneLog milestones, DaemonMetrics metrics, FaultActions actions, LongSupplier nanoTime,
                 QuarantineStore quarantine) {
        this.nanoTime = nanoTime;
        this.quarantineStore = quarantine;
        this.settings = settings;
        this.daemonId = daemonId;
        this.queue = queue;
        this.registry = registry;
        this.milestones = milestones;
        this.metrics = metrics;
        this.actions = actions;
        this.flaps = new FlapGuard(settings.flapThreshold(), settings.flapWindowMs(), settings.quarantineMs());
        MeterRegistry meters = metrics.registry();
        this.ring = settings.detector().enabled() ? new RingCoordinator(settings.detector(), daemonId, meters) : null;
        this.reactions = new ReactionTracker(milestones, metrics, nanoTime);
        this.opinions = new SecondOpinion(meters, nanoTime);
        this.earlyEchoes = new EarlyEchoes(meters, nanoTime);
        if (quarantine != null) {
            restoreQuarantine(quarantine.load());
        }
    }

    /**
     * Quarantines the ports an earlier manager quarantined (a standby taking over, a restart): without this a
     * flapping link would be routed back in, and pushed to the switches, until it flapped again. Each is
     * released once it has stayed up for the quarantine time as this manager sees it.
     */
    private void restoreQuarantine(List<QuarantineStore.Entry> stored) {
        for (QuarantineStore.Entry e : stored) {
            flaps.restore(e.guid(), e.port(), e.flaps(), e.sinceMillis(), nanoTime.getAsLong());
            queue.scheduleDeferred("quarantine " + Guids.format(e.guid()) + "/" + e.port(), flaps.quarantineMs(),
                    () -> releaseQuarantine(e.guid(), e.port()));
        }
        if (!stored.isEmpty()) {
            LOG.info("flap quarantine: {} port(s) still quarantined from the state directory, released after {} ms up",
                    stored.size(), flaps.quarantineMs());
        }
    }

    /** Writes the quarantine as it is now (control thread); a failure leaves the next manager the previous one. */
    private void storeQuarantine() {
        if (quarantineStore == null) {
            return;
        }
        List<QuarantineStore.Entry> entries = new ArrayList<>();
        for (org.fabricmanager.daemon.api.FaultReport.Quarantine q : flaps.quarantined()) {
            entries.add(new QuarantineStore.Entry(Guids.parse(q.guid()), q.port(), q.flaps(), q.sinceMillis()));
        }
        try {
            quarantineStore.save(entries);
        } catch (StoreException e) {
            LOG.error("flap quarantine not stored ({}): a manager started next would not know it", e.getMessage());
        }
    }

    /** The figures of fault reactions. */
    public ReactionTracker reactions() {
        return reactions;
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
        long guid = ms.guid();
        switch (flaps.transition(guid, port, up, nanoTime.getAsLong())) {
            case QUARANTINED -> {
                milestones.record(Milestone.Kind.LINK_QUARANTINED, "link at " + ms.name() + " port " + port
                        + " flaps (more than " + settings.flapThreshold() + " downs in " + settings.flapWindowMs()
                        + " ms): quarantined, kept down until it is up for " + settings.quarantineMs() + " ms");
                storeQuarantine();
                return true;
            }
            case MASKED -> {
                if (up) {
                    queue.scheduleDeferred("quarantine " + Guids.format(guid) + "/" + port, flaps.quarantineMs(),
                            () -> releaseQuarantine(guid, port));
                }
                LOG.debug("{} port {} {} while quarantined: ignored", ms.name(), port, up ? "up" : "down");
                return false;
            }
            default -> {
                return true;
            }
        }
    }

    /** The reports as routing must see them: a copy with the quarantined ports down, or the reports themselves. */
    public SwitchPorts masked(SwitchPorts ports) {
        if (!flaps.hasQuarantined(ports.guid())) {
            return ports;
        }
        SwitchPorts copy = new SwitchPorts(ports.guid(), ports.name(), ports.portCount());
        for (int p = 1; p <= ports.portCount(); p++) {
            copy.update(flaps.isQuarantined(ports.guid(), p) ? PortRecord.down(p) : ports.port(p));
        }
        return copy;
    }

    private void releaseQuarantine(long guid, int port) {
        if (stopping || !flaps.releaseIfStable(guid, port, nanoTime.getAsLong())) {
            return;
        }
        ManagedSwitch ms = registry.get(guid);
        String name = ms == null ? Guids.format(guid) : ms.name();
        milestones.record(Milestone.Kind.LINK_RELEASED, "link at " + name + " port " + port + " stable for "
                + settings.quarantineMs() + " ms: quarantine lifted");
        event("quarantine lifted: " + name + " port " + port);
        storeQuarantine();
        actions.maskChanged();
    }

    /** Quarantine state, for the views. */
    public FlapGuard flaps() {
        return flaps;
    }

    // ---- ring failure detector ---------------------------------------------------------------------

    /**
     * The switches the daemon expects ({@code fabric.expectedPgft}, as its canonical numbering gives them): the ring is
     * planned over every one of them, those not connected yet in slots that start dead (docs/detector.md, "Slots for
     * switches that come late"). Call before the first plan; {@code null} leaves the ring to the connected switches.
     */
    public void expectSwitches(Fabric expected) {
        if (expected == null || ring == null) {
            expectedOrder = null;
            expectedGuids = Set.of();
            return;
        }
        expectedOrder = List.copyOf(RingOrder.of(expected));
        expectedGuids = new HashSet<>(expectedOrder);
    }

    /**
     * How long after a plan the next one waits: a switch the ring has no slot for (a GUID outside the expected
     * fabric) needs a new epoch, which restarts every member; a stream of such switches (a pod being cabled) costs
     * one restart per interval, not one per switch.
     */
    long replanIntervalMs() {
        return Math.max(5_000L, 10L * settings.detector().deltaMs());
    }

    /** The ring, or {@code null} when the detector is disabled. */
    public RingCoordinator ring() {
        return ring;
    }

    /**
     * A switch was admitted: a restarted agent of a ring member joins the running ring, without a new epoch.
     * An agent that takes its ring as a window joins once its DETECTOR_ENDPOINT is known (it follows PORT_INFO
     * at once), so that the members holding its address can be told where it is now.
     */
    public void switchAdmitted(ManagedSwitch ms) {
        if (ring != null && ring.active() && ring.contains(ms.guid())) {
            // it joins above the incarnation of its previous run
            ms.replacedRingIncarnation(ring.incarnation(ms.guid()));
            if (!ms.session().hello().supportsDetectorWindow() || ms.detectorEndpoint() != null) {
                joinRing(ms);
            }
        }
    }

    /** An admitted switch's agent said where its member listens (after its PORT_INFO). */
    public void detectorEndpoint(ManagedSwitch ms) {
        if (ring != null && ring.active() && ms.admitted() && ring.contains(ms.guid())
                && ms.session().hello().supportsDetectorWindow()) {
            joinRing(ms);
        }
    }

    private void joinRing(ManagedSwitch ms) {
        if (ring.vacant(ms.guid())) {
            // an expected switch that connected after the plan takes its slot: same epoch, same key, a JOIN
            ring.filled(ms.guid());
            LOG.info("failure detector: switch {} ({}) connected late and joins its slot in ring epoch {} (no new epoch)",
                    Guids.format(ms.guid()), ms.name(), ring.epoch());
        }
        if (ms.detectorEndpoint() != null) {
            // only the members that hold its previous address hear of the move: O(window + lookups), not O(n)
            ring.moved(ms.guid(), ms.detectorEndpoint()).forEach((guid, update) -> {
                ManagedSwitch holder = registry.get(guid);
                if (holder != null && holder.admitted() && holder.session().hello().supportsDetectorWindow()) {
                    holder.session().sendDetectorPeers(update);
                }
            });
        }
        // a member of the cold start whose endpoint came after the ring plan (it was admitted before the ring ran,
        // and has not answered yet) starts with the others, under the start-up grace, rather than joining a ring
        // that does not run yet: a JOIN then left it unheard by its successor until it was declared dead
        // (FaultReactionIT, after the window change). A restarted agent (admitted while the ring ran) joins.
        boolean coldStart = ms.replacedRingIncarnation() < 0 && ring.awaitingAnswer(ms.guid());
        sendDetectorConfig(ms, !coldStart);
    }

    /**
     * The tables converged (every admitted switch acknowledged the routing in force). The first time, the ring is
     * planned over the newest fabric: routing a cold fabric comes first, the ring right after.
     */
    public void tablesConverged() {
        if (firstTablesInPlace) {
            return;
        }
        firstTablesInPlace = true;
        if (firstPlanScheduled) {
            queue.cancelDeferred(FIRST_PLAN);
        }
        if (latestFabric != null && !stopping) {
            planRing(latestFabric);
        }
    }

    /** {@code action} runs on the control thread whenever a ring epoch's start ends (every answer in, or its wait over). */
    public void onRingStarted(Runnable action) {
        ringStarted = Objects.requireNonNull(action, "action");
    }

    /** True while a planned ring epoch still awaits some switch's answer to its configuration. */
    public boolean ringStarting() {
        return ring != null && ring.active() && ring.awaitingAnswers() > 0;
    }

    /**
     * The longest a ring's start can take: each answer is awaited {@link RingCoordinator#answerTimeoutMs}, and an
     * agent whose endpoint comes late is configured later; twice that bounds what waits for the start.
     */
    public long ringStartWaitMs() {
        return ring == null ? 0 : 2 * ring.answerTimeoutMs();
    }

    /** A switch's agent asks for ring members' addresses: answered from this epoch's directory. */
    public void detectorLookup(ManagedSwitch ms, org.fabricmanager.southbound.Message.DetectorLookup lookup) {
        if (ring == null || !ring.active() || stopping || !ms.admitted()) {
            return;
        }
        ms.session().sendDetectorPeers(ring.lookup(lookup.txid(), lookup.epoch(), ms.guid(), lookup.members()));
    }

    /**
     * Plans the ring once the first routing's tables converged ({@link #tablesConverged}, or {@link #FIRST_PUSH_WAIT_MS}
     * after the first routing), and again when admitted switches the ring has no slot for connected (at most
     * once per {@link #replanIntervalMs}: later ones wait for the same replan). A switch that has a slot (it was
     * expected, and connected late or not at all) joins the running epoch instead.
     */
    public void planRing(Fabric fabric) {
        if (ring == null || fabric.switches().isEmpty()) {
            return;
        }
        latestFabric = fabric;
        if (!ring.active() && !firstTablesInPlace) {
            if (!firstPlanScheduled) {
                firstPlanScheduled = true;
                queue.scheduleDeferred(FIRST_PLAN, FIRST_PUSH_WAIT_MS, () -> {
                    if (!stopping && !firstTablesInPlace) {
                        LOG.warn("failure detector: the first tables have not converged {} ms after the first routing; "
                                + "the ring starts anyway", FIRST_PUSH_WAIT_MS);
                        tablesConverged();
                    }
                });
            }
            return; // planned when the first tables are in place (tablesConverged)
        }
        boolean outside = !ring.active();
        for (ManagedSwitch ms : registry.all()) {
            // a switch this epoch left out on purpose (its endpoint is another member's) does not replan the ring
            // each time it connects: a new epoch would leave it out again, at the cost of every agent's restart
            if (ms.admitted() && !ring.contains(ms.guid()) && !ring.leftOut(ms.guid())) {
                outside = true;
                break;
            }
        }
        if (!outside) {
            return;
        }
        if (ring.active()) {
            long sinceMs = (nanoTime.getAsLong() - plannedAtNanos) / 1_000_000L;
            if (sinceMs < replanIntervalMs()) {
                if (!replanScheduled) {
                    replanScheduled = true;
                    LOG.info("failure detector: a switch the ring has no slot for connected; the ring is planned again "
                            + "in {} ms (epoch {} runs until then, one replan for every such switch meanwhile)",
                            replanIntervalMs() - sinceMs, ring.epoch());
                    queue.scheduleDeferred(REPLAN, replanIntervalMs() - sinceMs, () -> {
                        replanScheduled = false;
                        if (!stopping) {
                            planRing(latestFabric);
                        }
                    });
                }
                return;
            }
        }
        if (replanScheduled) {
            queue.cancelDeferred(REPLAN);
            replanScheduled = false;
        }
        List<Long> slotted = slotOrder(fabric);
        List<Long> order = new ArrayList<>();
        Map<Long, InetSocketAddress> endpoints = new HashMap<>();
        Set<Long> vacant = new HashSet<>();
        for (long guid : slotted != null ? slotted : RingOrder.of(fabric)) {
            ManagedSwitch ms = registry.get(guid);
            if (ms != null && ms.admitted() && ms.session().remoteAddress() instanceof InetSocketAddress a) {
                order.add(guid);
                // the endpoint the agent advertised; else, for an agent that never says (no detector window), its
                // session's address and the configured agent port; one that will say gets a placeholder until then
                if (ms.detectorEndpoint() != null) {
                    endpoints.put(guid, ms.detectorEndpoint());
                } else if (!ms.session().hello().supportsDetectorWindow()) {
                    endpoints.put(guid, new InetSocketAddress(a.getAddress(), settings.detector().agentPort()));
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
                    event -> queue.append("detector " + event, () -> onDetectorEvent(event)));
        } catch (RuntimeException e) {
            // a detector that cannot start must not stop routing: faults still arrive by sessions and PORT_STATUS
            LOG.error("failure detector: ring epoch {} not started ({}); routing goes on, faults are seen through "
                    + "the agents' sessions and port reports only", ring.epoch(), e.getMessage());
            return;
        }
        failedSwitches.clear();
        opinions.clear();
        earlyEchoes.clear();
        for (long guid : members) {
            ManagedSwitch ms = registry.get(guid);
            // An agent that takes a window advertises its endpoint right after its PORT_INFO; one whose endpoint is
            // not here yet gets its window when it comes (detectorEndpoint, still BOOTSTRAP), not now with the guessed
            // address: its member would bind that, be heard there by its observer, and then move, and the observer,
            // told the new address before the restarted member ran, declared it dead (a cold-start false death)
            if (ms.session().hello().supportsDetectorWindow() && ms.detectorEndpoint() == null) {
                continue;
            }
            sendDetectorConfig(ms, false);
        }
        plannedAtNanos = nanoTime.getAsLong();
        LOG.info("failure detector: ring epoch {} of {} members (the daemon and {} switches{}), eta {} ms, delta {} ms",
                ring.epoch(), ring.size(), order.size(), vacant.isEmpty() ? "" : ", " + vacant.size()
                        + " of them slots for expected switches not connected yet, which join this epoch when they come",
                settings.detector().etaMs(), settings.detector().deltaMs());
    }

    /**
     * The switches of the ring in order, slots for switches not connected yet included, when the ring can give such
     * slots; else {@code null} (the ring is then planned over the connected switches, and a switch that comes later
     * needs a new epoch). The slots are those of the expected PGFT when the fabric uses its canonical GUIDs; otherwise
     * (no expected PGFT, or a fabric with its own GUIDs, which cannot say which GUID a missing switch will have) the
     * switches that connected switches' port reports name as cabled neighbours without being connected themselves.
     * Every connected agent must start its member with the slots dead ({@code FEATURE_DETECTOR_SLOTS}: one that
     * cannot would suspect every vacant slot), and the slots must fit one window
     * ({@link org.fabricmanager.southbound.Protocol#MAX_DEAD_AT_START}).
     */
    private List<Long> slotOrder(Fabric fabric) {
        int connectedExpected = 0;
        for (ManagedSwitch ms : registry.all()) {
            if (!ms.admitted()) {
                continue;
            }
            if (!ms.session().hello().supportsDetectorSlots()) {
                LOG.info("failure detector: switch {} ({}) cannot start its member with vacant slots dead: the ring "
                        + "covers the connected switches only", Guids.format(ms.guid()), ms.name());
                return null;
            }
            if (expectedGuids.contains(ms.guid())) {
                connectedExpected++;
            }
        }
        int vacant;
        List<Long> order;
        if (expectedOrder != null && canonical(fabric)) {
            vacant = expectedOrder.size() - connectedExpected;
            order = expectedOrder;
        } else {
            Set<Long> absent = new HashSet<>();
            Fabric planned = withKnownNeighbours(fabric, absent);
            if (absent.isEmpty()) {
                return null;
            }
            vacant = absent.size();
            order = RingOrder.of(planned);
        }
        if (vacant > org.fabricmanager.southbound.Protocol.MAX_DEAD_AT_START) {
            LOG.info("failure detector: {} expected switches are not connected, more slots than a window names ({}): "
                    + "the ring covers the connected switches only", vacant,
                    org.fabricmanager.southbound.Protocol.MAX_DEAD_AT_START);
            return null;
        }
        return order;
    }

    /** True when every switch of {@code fabric} has a GUID of the expected PGFT's canonical numbering. */
    private boolean canonical(Fabric fabric) {
        for (org.fabricmanager.topology.FabricSwitch s : fabric.switches()) {
            if (!expectedGuids.contains(s.guid())) {
                LOG.debug("failure detector: switch {} is not of the expected fabric's numbering: slots for known "
                        + "neighbours only", Guids.format(s.guid()));
                return false;
            }
        }
        return true;
    }

    /**
     * {@code fabric} with the switches that its switches' port reports name as cabled neighbours (a port up to a
     * switch) but that are not connected or not admitted, and the links claimed to them, so that {@link RingOrder}
     * places them by level like the others; their GUIDs are added to {@code absent}. The fabric itself when there are
     * none, or when the claims contradict each other (two claims on one port of the missing switch): then no slots.
     */
    private Fabric withKnownNeighbours(Fabric fabric, Set<Long> absent) {
        Map<Long, Integer> portCounts = new HashMap<>();
        Set<org.fabricmanager.topology.PortRef> claimedPorts = new HashSet<>();
        List<Link> claims = new ArrayList<>();
        for (ManagedSwitch ms : registry.all()) {
            if (!ms.admitted() || !fabric.isSwitch(ms.guid())) {
                continue;
            }
            SwitchPorts ports = ms.ports();
            for (int p = 1; p <= ports.portCount(); p++) {
                PortRecord r = ports.port(p);
                if (!r.isUp() || r.peerKind() != PortRecord.PeerKind.SWITCH || fabric.isSwitch(r.peerGuid())) {
                    continue;
                }
                ManagedSwitch peer = registry.get(r.peerGuid());
                if (peer != null && peer.admitted()) {
                    continue; // connected, only not in this fabric yet (its own report is on its way)
                }
                if (!claimedPorts.add(new org.fabricmanager.topology.PortRef(r.peerGuid(), r.peerPort()))) {
                    LOG.debug("failure detector: two switches claim port {} of {}: no slots for known neighbours",
                            r.peerPort(), Guids.format(r.peerGuid()));
                    absent.clear();
                    return fabric;
                }
                absent.add(r.peerGuid());
                portCounts.merge(r.peerGuid(), r.peerPort(), Math::max);
                claims.add(new Link(ms.guid(), p, r.peerGuid(), r.peerPort()));
            }
        }
        if (absent.isEmpty()) {
            return fabric;
        }
        List<org.fabricmanager.topology.FabricSwitch> switches = new ArrayList<>(fabric.switches());
        for (long guid : absent) {
            switches.add(new org.fabricmanager.topology.FabricSwitch(guid, Guids.format(guid), portCounts.get(guid)));
        }
        List<Link> links = new ArrayList<>(fabric.links());
        links.addAll(claims);
        try {
            return new Fabric(null, switches, fabric.nodes(), links);
        } catch (org.fabricmanager.topology.TopologyException e) {
            LOG.debug("failure detector: the neighbours named in port reports do not make a fabric ({}): no slots for "
                    + "them", e.getMessage());
            absent.clear();
            return fabric;
        }
    }

    private void sendDetectorConfig(ManagedSwitch ms, boolean join) {
        long guid = ms.guid();
        long epoch = ring.epoch();
        SwitchSession session = ms.session();
        // agents that take a window get O(window) bytes; older ones the whole ring, as before
        (session.hello().supportsDetectorWindow()
                ? session.sendDetectorWindow(ring.windowFor(guid, join, session.hello().supportsDetectorSlots()),
                        ring.answerTimeoutMs())
                : session.sendDetectorConfig(ring.configFor(guid, join), ring.answerTimeoutMs())).thenAccept(reply ->
                queue.append("detector config answer " + Guids.format(guid), () -> {
                    // a session superseded by its restarted agent answers NO_ANSWER as it closes, after the
                    // new session took the GUID: only the new session's own answer counts
                    if (registry.current(session) == null) {
                        return;
                    }
                    onDetectorConfigAnswer(epoch, guid, reply);
                    if (reply.late() != null) {
                        // its member may be starting slowly: an answer after the wait still tells the ring it runs
                        long waitEnded = System.nanoTime();
                        reply.late().thenAccept(late -> queue.append("late detector config answer " + Guids.format(guid),
                                () -> {
                                    if (registry.current(session) != null) {
                                        onLateDetectorConfigAnswer(epoch, guid, late, waitEnded);
                                    }
                                }));
                    }
                }));
    }

    private void onDetectorConfigAnswer(long epoch, long guid, DetectorConfigReply reply) {
        if (stopping) {
            return;
        }
        ManagedSwitch ms = registry.get(guid);
        String name = ms == null ? Guids.format(guid) : ms.name();
        if (epoch == ring.epoch() && reply.outcome() == DetectorConfigReply.Outcome.NO_DETECTOR) {
            LOG.warn("failure detector: switch {} ({}) runs no ring member ({}): its faults are known only through "
                    + "its session and its neighbours' port status", Guids.format(guid), name, reply.detail());
        } else if (epoch == ring.epoch() && !reply.running()) {
            LOG.warn("failure detector: switch {} ({}) did not answer its ring configuration ({}); the ring still "
                    + "watches it", Guids.format(guid), name, reply.detail());
        }
        if (ring.answered(epoch, guid, reply)) {
            Map<Long, String> unwatched = ring.unwatchedSwitches();
            int unconfirmed = ring.unconfirmedAnswers();
            milestones.record(Milestone.Kind.DETECTOR_RUNNING, String.format("failure detector: ring epoch %d running, "
                    + "%d of %d switches watched%s%s", epoch, ring.size() - 1 - unwatched.size(), ring.size() - 1,
                    unwatched.isEmpty() ? "" : " (" + unwatched.size() + " without a running member: see /api/v1/faults)",
                    unconfirmed == 0 ? "" : "; " + unconfirmed + " of them did not answer in time and may still be "
                            + "starting (ringUnconfirmed in /api/v1/faults)"));
            ringStarted.run();
        }
    }

    private void onLateDetectorConfigAnswer(long epoch, long guid, DetectorConfigReply late, long waitEndedNanos) {
        if (stopping || epoch != ring.epoch() || late.outcome() == DetectorConfigReply.Outcome.NO_ANSWER) {
            return; // superseded (the next configuration has its own answer) or its session closed (it reconnects)
        }
        boolean wasUnconfirmed = ring.unconfirmedAnswers() > 0;
        ring.answered(epoch, guid, late);
        ManagedSwitch ms = registry.get(guid);
        String name = ms == null ? Guids.format(guid) : ms.name();
        long lateMs = (System.nanoTime() - waitEndedNanos) / 1_000_000;
        if (!late.running()) {
            LOG.warn("failure detector: switch {} ({}) runs no ring member ({}), it said {} ms after the wait ended: its "
                    + "faults are known only through its session and its neighbours' port status", Guids.format(guid),
                    name, late.detail(), lateMs);
        } else {
            // one line per switch only at debug: at a cold start of thousands, hundreds may come late together
            LOG.debug("failure detector: switch {} ({}) confirmed its ring member runs {} ms after the wait ended",
                    Guids.format(guid), name, lateMs);
        }
        if (wasUnconfirmed && ring.unconfirmedAnswers() == 0) {
            LOG.info("failure detector: every switch of ring epoch {} has answered its configuration, the last {} ms "
                    + "after the wait ended", epoch, lateMs);
        }
    }

    /** A verdict or rejoin from the daemon's member (control thread; package-private for tests). */
    void onDetectorEvent(DetectorEvent event) {
        if (ring == null || !ring.active() || stopping) {
            return;
        }
        if (event instanceof DetectorEvent.MemberFailed f) {
            memberFailed(ring.guid(f.member()), f.member(), f.incarnation());
        } else if (event instanceof DetectorEvent.MemberSuspected s) {
            memberSuspected(ring.guid(s.member()), s.member(), s.incarnation());
        } else if (event instanceof DetectorEvent.MemberRejoined r) {
            long guid = ring.guid(r.member());
            ring.rejoined(r.member(), r.incarnation());
            EarlyEchoes.Echo early = earlyEchoes.get(guid);
            if (early != null && r.incarnation() > early.incarnation && earlyEchoes.end(early) && early.prepared) {
                actions.preparationRefuted(guid); // it refuted the suspicion: no verdict on that incarnation will come
            }
            SecondOpinion.Check check = opinions.pendingFor(guid);
            if (check != null && r.incarnation() > check.incarnation()
                    && opinions.decide(check, SecondOpinion.Outcome.REFUTED)) {
                // the ring itself hears the member again (it learnt of the verdict and rejoined) before the echo
                // decided: the best evidence there is that it lives
                refuted(check, "its member rejoined the ring at incarnation " + r.incarnation());
            }
            if (failedSwitches.remove(guid) == null) {
                // a member that refuted a suspicion takes a higher incarnation without having been dead:
                // nothing was routed around, so nothing to recover
                LOG.debug("ring: member {} alive at incarnation {} (a refuted suspicion)", r.member(), r.incarnation());
                return;
            }
            event("ring: switch " + Guids.format(guid) + " rejoined");
            metrics.recovery(DaemonMetrics.FaultType.SWITCH);
            actions.stateMayHaveChanged();
        } else if (event instanceof DetectorEvent.LinkDown d) {
            // the reporter's own PORT_STATUS is ordered with its later changes, a broadcast is not (a late
            // LinkDown would undo a newer up); a reporter without a session is out of the fabric anyway
            LOG.debug("ring: link down at {} port {}", Guids.format(ring.guid(d.reporter())), d.port());
        } else if (event instanceof DetectorEvent.LinkUp u) {
            LOG.debug("ring: link up at {} port {} (applied when its PORT_STATUS arrives)",
                    Guids.format(ring.guid(u.reporter())), u.port());
        }
    }

    /**
     * A ring member began suspecting switch {@code guid} (member {@code member}) at {@code incarnation}: half a δ before
     * any verdict, its session is asked for a sign of life ({@link EarlyEchoes}). Package-private for tests.
     */
    void memberSuspected(long guid, int member, long incarnation) {
        int boundMs = settings.detector().secondOpinionMs();
        if (guid == daemonId || member == Protocol.DAEMON_RING_MEMBER || boundMs == 0 || ring.unwatched(guid)
                || opinions.pendingFor(guid) != null) {
            return;
        }
        ManagedSwitch ms = registry.get(guid);
        if (ms == null || !ms.admitted() || incarnation <= ms.replacedRingIncarnation()) {
            return;
        }
        EarlyEchoes.Echo echo = earlyEchoes.begin(guid, incarnation, ms.session(), settings.detector().deltaMs() / 2);
        if (echo == null) {
            return; // one under way already, or one began less than half a δ ago
        }
        int waitMs = SecondOpinion.waitMs(boundMs, ms.session().lastRttNanos());
        // the echo stays open until the verdict can have come and been delivered (the verdict is due half a δ after the
        // notice, later on a member that finds itself late); an answer at any time up to then proves the agent lives
        long openMs = settings.detector().deltaMs() + (long) boundMs;
        ms.session().probe(openMs).whenComplete((rttNanos, failure) -> queue.append("early echo answer "
                + Guids.format(guid), () -> earlyEchoEnded(echo, failure == null ? rttNanos : -1)));
        queue.scheduleDeferred("early echo wait " + Guids.format(guid), waitMs, () -> earlyEchoWaited(echo));
        LOG.debug("ring: switch {} ({}) suspected at incarnation {}; its agent is asked for a sign of life",
                Guids.format(guid), ms.name(), incarnation);
    }

    /**
     * The early echo went unanswered for the second opinion's wait: a verdict waiting on it is confirmed; without one,
     * the routing without the switch may start.
     */
    private void earlyEchoWaited(EarlyEchoes.Echo echo) {
        if (stopping || !earlyEchoes.current(echo)) {
            return;
        }
        earlyEchoes.silent(echo);
        if (echo.check != null) {
            earlyEchoes.end(echo);
            if (!opinions.decide(echo.check, SecondOpinion.Outcome.CONFIRMED)) {
                return;
            }
            ManagedSwitch ms = registry.get(echo.guid);
            if (ms == null) {
                routeAround(echo.guid, echo.incarnation, null, null, (int) earlyEchoes.ageMs(echo), true);
            } else if (ms.session() != echo.session) {
                reconnectedMeanwhile(ms);
            } else {
                confirmedEarly(echo, ms);
            }
            return;
        }
        if (opinions.worthPreparing()) {
            echo.prepared = true;
            actions.prepareWithout(echo.guid);
        }
    }

    /** A verdict confirmed by the early echo: routed around, its milestone saying on what evidence. */
    private void confirmedEarly(EarlyEchoes.Echo echo, ManagedSwitch ms) {
        long ageMs = earlyEchoes.ageMs(echo);
        routeAround(echo.guid, echo.incarnation, ms, "its agent has not answered an echo sent " + ageMs
                + " ms ago, when the ring began suspecting it", (int) Math.min(Integer.MAX_VALUE, ageMs), true);
    }

    /** The early echo was answered ({@code rttNanos} ≥ 0), timed out or failed with its session (-1). */
    private void earlyEchoEnded(EarlyEchoes.Echo echo, long rttNanos) {
        if (stopping) {
            return;
        }
        boolean answered = rttNanos >= 0;
        if (answered ? !earlyEchoes.answered(echo) : !earlyEchoes.end(echo)) {
            return; // a verdict took it, a new epoch dropped it, or it was decided already
        }
        if (echo.check != null) {
            // a verdict waits on it: an answer to an echo sent before the verdict does not show that the agent ran
            // after the ring stopped hearing it, so the verdict gets the usual echo, sent now
            if (opinions.pendingFor(echo.guid) == echo.check) {
                askAfterVerdict(echo.check, SecondOpinion.waitMs(settings.detector().secondOpinionMs(),
                        echo.session.lastRttNanos()));
            }
            return;
        }
        ManagedSwitch ms = registry.get(echo.guid);
        if (echo.prepared && (answered || (ms != null && ms.session() == echo.session))) {
            // it answered, or its session lives on and no verdict came (the suspicion ended some other way): the
            // routing prepared for it is not wanted. (A closed session's loss is routed by its own path, which uses it.)
            actions.preparationRefuted(echo.guid);
        }
        if (answered) {
            LOG.debug("ring: suspected switch {} answered an echo in {} ms", Guids.format(echo.guid), rttNanos / 1e6);
        }
    }

    /** The ring declared switch {@code guid} (member {@code member}) dead at {@code incarnation}. */
    void memberFailed(long guid, int member, long incarnation) {
        if (guid == daemonId || member == Protocol.DAEMON_RING_MEMBER) {
            return;
        }
        if (ring != null && ring.unwatched(guid)) {
            LOG.debug("ring: switch {} declared dead, but it runs no ring member: ignored", Guids.format(guid));
            return;
        }
        ManagedSwitch ms = registry.get(guid);
        if (ms != null && incarnation <= ms.replacedRingIncarnation()) {
            // the agent restarted faster than the ring noticed: the verdict is about its previous run
            LOG.info("ring: the previous run of switch {} ({}, ring incarnation {}) declared dead; its restarted "
                    + "agent is connected and joins the ring", Guids.format(guid), ms.name(), incarnation);
            return;
        }
        int boundMs = settings.detector().secondOpinionMs();
        EarlyEchoes.Echo early = earlyEchoes.get(guid);
        if (early != null && early.check != null) {
            LOG.debug("ring: switch {} declared dead again at incarnation {} while its early echo decides",
                    Guids.format(guid), incarnation);
            return;
        }
        if (early != null && ms != null && ms.admitted() && EarlyEchoes.matches(early, ms.session(), incarnation)) {
            if (early.silent) {
                // its agent has answered nothing since an echo sent when the ring began suspecting it, at least the
                // wait ago: the second opinion is in already (and the routing without it, prepared meanwhile)
                earlyEchoes.end(early);
                opinions.count(SecondOpinion.Outcome.CONFIRMED);
                confirmedEarly(early, ms);
                return;
            }
            // the early echo has not been unanswered for the whole wait yet: the rest of its wait decides
            SecondOpinion.Check check = new SecondOpinion.Check(guid, member, incarnation, ms.session());
            if (opinions.begin(check)) {
                early.check = check;
                if (opinions.worthPreparing()) {
                    early.prepared = true;
                    actions.prepareWithout(guid);
                }
            }
            return;
        }
        if (early != null) {
            earlyEchoes.end(early); // about another session or incarnation: the verdict gets its own echo
        }
        if (ms == null || !ms.admitted() || boundMs == 0) {
            // no session to ask (it is gone, and the switch with it), or second opinions are off
            opinions.count(SecondOpinion.Outcome.CONFIRMED);
            routeAround(guid, incarnation, ms, ms != null && ms.admitted() ? "its session still looks alive" : null, -1,
                    false);
            return;
        }
        // one observer's word is not enough (it may be the one that is late): the switch's own session is asked for
        // a sign of life sent after the verdict. A silent death (a stopped agent keeps TCP open) answers nothing
        // and is acted on after waitMs; a live switch answers within a round trip
        SecondOpinion.Check check = new SecondOpinion.Check(guid, member, incarnation, ms.session());
        if (!opinions.begin(check)) {
            LOG.debug("ring: switch {} declared dead again at incarnation {} while a second opinion is under way",
                    Guids.format(guid), incarnation);
            return;
        }
        int waitMs = SecondOpinion.waitMs(boundMs, ms.session().lastRttNanos());
        // on a quiet ring the verdicts that reach this point are real deaths: the routing without the switch is computed
        // during the wait and installed if the verdict is confirmed, dropped if it is refuted. Not on a ring that has
        // just accused a live switch: its verdicts are likely false, and a computation for each adds to the load
        if (opinions.worthPreparing()) {
            actions.prepareWithout(guid);
        }
        askAfterVerdict(check, waitMs);
    }

    /** Sends the accused switch's session the echo after the verdict; its answer or silence decides {@code check}. */
    private void askAfterVerdict(SecondOpinion.Check check, int waitMs) {
        check.session().probe(waitMs).whenComplete((rttNanos, failure) -> queue.append("detector second opinion "
                + Guids.format(check.guid()), () -> secondOpinion(check, failure == null ? rttNanos : -1, waitMs)));
    }

    /** The accused switch's session answered the echo ({@code rttNanos} ≥ 0) or did not (-1) within {@code waitMs}. */
    private void secondOpinion(SecondOpinion.Check check, long rttNanos, int waitMs) {
        if (ring == null || stopping) {
            return;
        }
        boolean answered = rttNanos >= 0;
        if (!opinions.decide(check, answered ? SecondOpinion.Outcome.REFUTED : SecondOpinion.Outcome.CONFIRMED)) {
            return; // decided already (its member rejoined the ring), or a new epoch dropped it
        }
        if (answered) {
            refuted(check, String.format("its agent answered an echo in %.1f ms", rttNanos / 1e6));
            return;
        }
        ManagedSwitch ms = registry.get(check.guid());
        if (ms != null && ms.session() != check.session()) {
            reconnectedMeanwhile(ms);
            return;
        }
        routeAround(check.guid(), check.incarnation(), ms, ms == null ? null
                : "its agent did not answer an echo within " + waitMs + " ms", waitMs, false);
    }

    /**
     * A confirmed verdict whose session has been replaced meanwhile (the agent reconnected): it is about the run that
     * session had; the new one joins the ring, and nothing is routed around.
     */
    private void reconnectedMeanwhile(ManagedSwitch ms) {
        actions.preparationRefuted(ms.guid());
        LOG.info("ring: the previous session of switch {} ({}) did not answer after the ring declared it dead; its "
                + "agent is connected again and joins the ring", Guids.format(ms.guid()), ms.name());
    }

    /**
     * A verdict the switch refuted: logged (rate-limited), nothing re-routed. Its member is sent its window again
     * (JOIN, same epoch): an agent whose member runs keeps it (it rejoins by itself once it hears of the verdict),
     * and one whose member died while the agent lives starts it again, so the ring watches the switch again.
     */
    private void refuted(SecondOpinion.Check check, String evidence) {
        actions.preparationRefuted(check.guid());
        ManagedSwitch ms = registry.get(check.guid());
        opinions.logRefuted(check, ms == null ? "" : ms.name(), evidence);
        if (ms != null && ms.admitted() && ms.session() == check.session() && ring.active() && ring.contains(ms.guid())) {
            sendDetectorConfig(ms, true);
        }
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
    private void routeAround(long guid, long incarnation, ManagedSwitch ms, String why, int echoWaitMs,
                             boolean echoBeforeVerdict) {
        failedSwitches.put(guid, System.currentTimeMillis());
        String name = ms == null ? Guids.format(guid) : Guids.format(guid) + " (" + ms.name() + ")";
        if (ms != null) {
            failedNames.put(guid, ms.name());
        }
        if (ms != null) {
            event("ring: switch " + name + " failed");
        } else {
            // its session is already gone, and with it the switch from the fabric: nothing more to react to,
            // and a reaction opened here would stay open and absorb the next, unrelated fault's figures
            reactions.joinIfOpen("ring: switch " + name + " failed (no session left)");
        }
        metrics.fault(DaemonMetrics.FaultType.SWITCH);
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("guid", Guids.format(guid));
        details.put("incarnation", incarnation);
        details.put("routedAround", ms != null);
        if (echoWaitMs >= 0) {
            details.put("echoWaitMs", echoWaitMs);
            details.put("echoBeforeVerdict", echoBeforeVerdict);
        }
        milestones.record(Milestone.Kind.SWITCH_FAILED, "failure detector: switch " + name
                + " declared dead by the ring at incarnation " + incarnation + (ms == null
                ? "; its session had already closed and the switch left the fabric with it: nothing more to route around"
                : why == null ? "" : "; " + why + ": routing around it"), details);
        if (ms != null) {
            // the daemon cannot manage a switch whose agent the ring declared dead: drop the session
            actions.dropSession(ms, "declared dead by the failure detector");
        }
    }

    /** Switches the ring declared dead and that have not rejoined: GUID -> since (ms). */
    public Map<Long, Long> failedSwitches() {
        return Collections.unmodifiableMap(failedSwitches);
    }

    /** The name a failed switch had when it was declared dead ("" when unknown). */
    public String failedName(long guid) {
        return failedNames.getOrDefault(guid, "");
    }

    // ---- link names --------------------------------------------------------------------------------

    /** Remembers the first routed fabric's cabling, so that a down port can name the link it had. */
    public void rememberBaseline(Fabric fabric) {
        if (!baselinePeers.isEmpty()) {
            return;
        }
        baseline = fabric;
        for (Link l : fabric.links()) {
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

    /** The first routed fabric ({@code null} before it): where the status page places switches that died since. */
    public Fabric baseline() {
        return baseline;
    }

    /** The peer GUID at (guid, port) in the first routed fabric (0: none). */
    public long baselinePeer(long guid, int port) {
        long[] peers = baselinePeers.get(guid);
        return peers == null || port >= peers.length ? 0 : peers[port];
    }

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
        if (replanScheduled) {
            queue.cancelDeferred(REPLAN);
            replanScheduled = false;
        }
    }

    /** The flap and settle knobs of a configuration reload (control thread); the detector keeps its own. */
    public void retune(DaemonConfig.Faults faults) {
        settings = faults;
        flaps.retune(faults.flapThreshold(), faults.flapWindowMs(), faults.quarantineMs());
    }
}
