package org.fabricmanager.daemon.view;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.discovery.DiscoveryManager;
import org.fabricmanager.daemon.discovery.LinkIssue;
import org.fabricmanager.daemon.discovery.TopologyBuilder;
import org.fabricmanager.daemon.faults.Drains;
import org.fabricmanager.daemon.faults.FaultManager;
import org.fabricmanager.daemon.faults.RingCoordinator;
import org.fabricmanager.daemon.push.HeldTable;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.push.PushRound;
import org.fabricmanager.daemon.push.SwitchPushState;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.registry.DepartedSwitches;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.release.BuildInfo;
import org.fabricmanager.routing.VcRules;
import org.fabricmanager.routing.analysis.PathTracer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.Trace;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PortRef;

/**
 * Builds the answers to the daemon's queries from its managers' state: status, switches, tables,
 * routes, discovery and faults. Called on the control thread only (through the event queue), so each
 * answer is one consistent snapshot; the managers are only read.
 */
public final class DaemonViews {
    private static final int ISSUES_LISTED = 1000;

    private final SwitchRegistry registry;
    private final DiscoveryManager discovery;
    private final RoutingManager routing;
    private final LftPusher pusher;
    private final FaultManager faults;
    private final Drains drains;
    private final Supplier<DaemonState> state;
    private final long daemonId;
    private final boolean unreadyOnMismatch;
    private final Supplier<Views.OpenSm> opensm;
    private final long startedNanos = System.nanoTime();
    private PathTracer tracer;
    private long tracerVersion = -1;

    /**
     * @param unreadyOnMismatch whether the status says the daemon is not ready while the fabric is miswired against
     *                          the expected shape ({@code fabric.unreadyOnMismatch})
     * @param opensm            OpenSM as its plug-in shows it ({@code null} without OpenSM)
     */
    public DaemonViews(ViewSources sources, Supplier<DaemonState> state, long daemonId, boolean unreadyOnMismatch,
                       Supplier<Views.OpenSm> opensm) {
        this.registry = sources.registry();
        this.discovery = sources.discovery();
        this.routing = sources.routing();
        this.pusher = sources.pusher();
        this.faults = sources.faults();
        this.drains = sources.drains();
        this.state = state;
        this.daemonId = daemonId;
        this.unreadyOnMismatch = unreadyOnMismatch;
        this.opensm = opensm;
    }

    /** The routing in force, as {@code GET /api/v1/status} and {@code GET /api/v1/routing} give it. */
    public Views.Routing routing() {
        ActiveRouting a = routing.active();
        String onFault = routing.repairs() ? "repair" : "recompute";
        return a == null
                ? new Views.Routing(routing.engineName(), 0, null, null, null, routing.computations(), null, null,
                        onFault, false, null, null, null, false)
                : new Views.Routing(a.engine(), a.version(), a.durationMs(), a.valid(), a.unreachablePairs(),
                        routing.computations(), a.reused(), a.deadlockFree(), onFault, a.repaired(),
                        a.churn() == null ? null : a.churn().changedEntries(),
                        a.churn() == null ? null : a.churn().minimumEntries(),
                        a.churn() == null ? null : a.churn().takenBack(), routing.refinable());
    }

    /** {@code GET /api/v1/status}. */
    public Views.Status status() {
        Views.Routing r = routing();
        ActiveRouting a = routing.active();
        PushRound round = pusher.round();
        Views.Push push = new Views.Push(round == null ? 0 : round.version(), round == null ? 0 : round.blocks(),
                round == null ? 0 : round.bytes(), round == null ? 0 : round.commits(), round == null ? 0 : round.acked(),
                round == null ? 0 : round.retries(), round == null ? 0 : round.fullPushes(),
                round == null || round.completedNanos() < 0 ? null : round.durationMs(), pusher.totalBlocks(),
                pusher.totalBytes(), pusher.totalRetries());
        TopologyBuilder.Result last = discovery.last();
        DaemonState now = state.get();
        // the verdict of the fabric the routing in force was computed for (pending while its check runs), beside that
        // routing; while discovering (again), the last snapshot's
        FabricCheck check = now == DaemonState.DISCOVERING ? discovery.lastCheck() : discovery.routedCheck();
        String unready = unreadyOnMismatch && check.verdict() == FabricCheck.Verdict.MISWIRED
                ? "the fabric is not the expected " + check.expected() + ": " + check.summary() : null;
        Views.Discovery d = new Views.Discovery(check.verdict().name(), check.summary(), check.drainedSwitchCount(),
                check.drainedLinkCount(), last == null ? 0 : last.issues().size(), unready);
        int nodes = a != null ? a.fabric().nodes().size() : last != null ? last.fabric().nodes().size() : 0;
        Integer expected = discovery.expected() == null ? null : discovery.expected().totalSwitchCount();
        return new Views.Status(now, new Views.SwitchCounts(expected, registry.admittedCount()), nodes, r,
                new Views.Tables(pusher.inSyncCount(), pusher.pendingCount(), pusher.failingCount()), push, d,
                (System.nanoTime() - startedNanos) / 1_000_000, Guids.format(daemonId),
                Views.Build.of(BuildInfo.current()), new Views.Drains(drains.switchCount(), drains.linkCount()),
                opensm.get());
    }

    /**
     * {@code GET /api/v1/drains/isolated}: the links the gray-link policy isolated, in the order isolated, with the
     * figures that decided each ({@code figures} by the end it is stored under; {@code null} where not known).
     */
    public List<Views.Isolated> isolated(Function<PortRef, String> figures) {
        List<Views.Isolated> out = new ArrayList<>();
        drains.isolatedView().forEach((at, i) -> out.add(new Views.Isolated("link " + at, Guids.format(at.guid()),
                at.port(), switchName(at.guid()), i.peer().toString(), i.sinceMillis(), i.probationMs(),
                figures.apply(at))));
        return out;
    }

    /** Switch {@code guid}'s name: as its agent says, else as the topology has it, else {@code null}. */
    public String switchName(long guid) {
        ManagedSwitch ms = registry.get(guid);
        return ms != null ? ms.name() : topology() == null ? null
                : topology().switchByGuid(guid).map(FabricSwitch::name).orElse(null);
    }

    /** {@code GET /api/v1/drains}: the drained switches and cables, in the order drained. */
    public List<Views.Drained> drained() {
        List<Views.Drained> out = new ArrayList<>();
        drains.view().forEach((at, since) -> {
            ManagedSwitch ms = registry.get(at.guid());
            String name = ms != null ? ms.name() : topology() == null ? null
                    : topology().switchByGuid(at.guid()).map(FabricSwitch::name).orElse(null);
            String peer = null;
            if (at.port() > 0 && ms != null && at.port() <= ms.ports().portCount()) {
                PortRecord r = ms.ports().port(at.port());
                peer = r.peerKind() == PortRecord.PeerKind.NONE ? null : Guids.format(r.peerGuid())
                        + (r.peerKind() == PortRecord.PeerKind.SWITCH ? ":" + r.peerPort() : "");
            }
            out.add(new Views.Drained(Drains.describe(at), Guids.format(at.guid()), at.port() == 0 ? null : at.port(),
                    name, peer, since));
        });
        return out;
    }

    /** {@link org.fabricmanager.daemon.api.DaemonApi#whenHanded}'s read, or {@code null} while no routing is installed. */
    public <T> T handed(Function<Fabric, T> read) {
        DaemonState now = state.get();
        ActiveRouting a = routing.active();
        boolean installed = now == DaemonState.PUSHING || now == DaemonState.CONVERGED;
        return installed && a != null ? read.apply(a.fabric()) : null;
    }

    /** The routed fabric (with the destination indices in use), or the last discovered one before routing. */
    public Fabric topology() {
        ActiveRouting a = routing.active();
        if (a != null) {
            return a.fabric();
        }
        TopologyBuilder.Result last = discovery.last();
        return last == null ? null : last.fabric();
    }

    /** {@code GET /api/v1/discovery}. */
    public Views.DiscoveryReport discovery() {
        List<String> issues = new ArrayList<>();
        int count = 0;
        TopologyBuilder.Result last = discovery.last();
        if (last != null) {
            count = last.issues().size();
            for (LinkIssue i : last.issues()) {
                if (issues.size() >= ISSUES_LISTED) {
                    break;
                }
                issues.add(i.toString());
            }
        }
        return new Views.DiscoveryReport(discovery.check(), count, issues);
    }

    /**
     * {@code GET /api/v1/switches}, by GUID: every admitted switch, and every switch the daemon knew that has no
     * session now (in the routed or the first routed fabric, declared dead, or disconnected since), with its state:
     * a dead switch does not vanish when the fabric is re-routed without it.
     */
    public List<Views.Switch> switchList() {
        Map<Long, Views.Switch> out = new TreeMap<>(Long::compareUnsigned);
        forEachAbsent((guid, name, ports) -> out.put(guid, absent(guid, name, ports)));
        for (ManagedSwitch ms : registry.all()) {
            if (ms.admitted()) {
                out.put(ms.guid(), summary(ms));
            }
        }
        return new ArrayList<>(out.values());
    }

    /** What {@link #forEachAbsent} hands out: a known switch without an admitted session. */
    @FunctionalInterface
    private interface AbsentSwitch {
        void accept(long guid, String name, Integer ports);
    }

    /** Every switch known from the fabrics, the failure detector or a past session that has no admitted session now. */
    private void forEachAbsent(AbsentSwitch action) {
        Map<Long, Boolean> seen = new TreeMap<>(Long::compareUnsigned);
        ActiveRouting a = routing.active();
        for (Fabric f : new Fabric[] {faults.baseline(), a == null ? null : a.fabric()}) {
            if (f == null) {
                continue;
            }
            for (FabricSwitch s : f.switches()) {
                if (!admitted(s.guid()) && seen.put(s.guid(), Boolean.TRUE) == null) {
                    action.accept(s.guid(), s.name(), s.ports());
                }
            }
        }
        for (DepartedSwitches.Departed d : registry.departed().all()) {
            if (!admitted(d.guid()) && seen.put(d.guid(), Boolean.TRUE) == null) {
                action.accept(d.guid(), d.name(), d.ports());
            }
        }
        for (Long guid : faults.failedSwitches().keySet()) {
            if (!admitted(guid) && seen.put(guid, Boolean.TRUE) == null) {
                action.accept(guid, faults.failedName(guid), null);
            }
        }
    }

    private boolean admitted(long guid) {
        ManagedSwitch ms = registry.get(guid);
        return ms != null && ms.admitted();
    }

    /**
     * {@code DEAD} when the failure detector declared it dead, {@code PENDING_ADMISSION} when it is connected and waits
     * for an admin, else {@code DISCONNECTED} (its session ended).
     */
    private String absentState(long guid) {
        return faults.failedSwitches().containsKey(guid) ? "DEAD"
                : registry.get(guid) != null ? "PENDING_ADMISSION" : "DISCONNECTED";
    }

    private Long disconnectedSince(long guid) {
        DepartedSwitches.Departed d = registry.departed().get(guid);
        return d == null ? null : d.sinceMillis();
    }

    private Views.Switch absent(long guid, String name, Integer ports) {
        return new Views.Switch(Guids.format(guid), name, false, null, ports, null, null, false, null, null,
                absentState(guid), disconnectedSince(guid), drains.isSwitchDrained(guid), null);
    }

    /** {@code FAILING}, {@code IN_SYNC} or {@code PENDING}: a switch with an admitted session. */
    private String connectedState(long guid) {
        return pusher.isFailing(guid) ? "FAILING" : pusher.inSync(guid) ? "IN_SYNC" : "PENDING";
    }

    private Views.Switch summary(ManagedSwitch ms) {
        SwitchPushState p = pusher.state(ms.guid());
        long rtt = ms.session().lastRttNanos();
        return new Views.Switch(Guids.format(ms.guid()), ms.name(), true, String.valueOf(ms.session().remoteAddress()),
                ms.hello().portCount(), ms.ports().portsUp(), p == null ? null : p.heldVersion(), p != null && p.inSync(),
                rtt < 0 ? null : rtt / 1e6, ms.connectedAtMillis(), connectedState(ms.guid()), null,
                drains.isSwitchDrained(ms.guid()), p == null ? null : p.confirmedAt());
    }

    /** {@code GET /api/v1/switches/pending}, by GUID. */
    public List<Views.PendingSwitch> pending() {
        List<Views.PendingSwitch> out = new ArrayList<>();
        for (ManagedSwitch ms : registry.pending()) {
            out.add(new Views.PendingSwitch(Guids.format(ms.guid()), ms.name(), String.valueOf(ms.session().remoteAddress()),
                    ms.pendingReason(), ms.connectedAtMillis()));
        }
        out.sort((a, b) -> a.guid().compareTo(b.guid()));
        return out;
    }

    /** Details of one switch, or {@code null} when the daemon does not know it. */
    public Views.SwitchDetail switchDetail(long guid) {
        ManagedSwitch ms = registry.get(guid);
        ActiveRouting a = routing.active();
        if (ms == null || !ms.admitted()) {
            Views.SwitchDetail[] found = new Views.SwitchDetail[1];
            forEachAbsent((g, name, ports) -> {
                if (g == guid) {
                    found[0] = new Views.SwitchDetail(Guids.format(guid), name, false, null, ports, null, null, null,
                            false, null, null, null, null, null, List.of(), absentState(guid), disconnectedSince(guid),
                            drains.isSwitchDrained(guid), null);
                }
            });
            return found[0];
        }
        SwitchPushState p = pusher.state(guid);
        List<Views.Port> ports = new ArrayList<>();
        FabricIndex index = a == null ? null : a.fabric().index();
        int id = index == null ? FabricIndex.NONE : index.switchId(guid);
        for (int port = 1; port <= ms.ports().portCount(); port++) {
            PortRecord r = ms.ports().port(port);
            String link;
            if (!r.isUp()) {
                link = "DOWN";
            } else if (drains.masks(guid, port, r)) {
                link = "DRAINED";
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
        long rtt = ms.session().lastRttNanos();
        return new Views.SwitchDetail(Guids.format(guid), ms.name(), true, String.valueOf(ms.session().remoteAddress()),
                ms.hello().portCount(), ms.ports().portsUp(), p == null ? null : p.heldVersion(),
                p == null ? null : Guids.format(p.heldHash()), p != null && p.inSync(), rtt < 0 ? null : rtt / 1e6,
                ms.connectedAtMillis(), ms.hello().incarnation(), p == null ? null : p.retries(),
                p == null ? null : p.lastError(), ports, connectedState(guid), null, drains.isSwitchDrained(guid),
                p == null ? null : p.confirmedAt());
    }

    /** The current table of a switch, or {@code null} when it has none. */
    public Views.Lft lft(long guid) {
        ActiveRouting a = routing.active();
        if (a == null) {
            return null;
        }
        TableSet t = a.tables();
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

    /** The VC rules of a switch in the tables in force, or {@code null} when it has none or the tables carry none. */
    public Views.Vc vc(long guid) {
        ActiveRouting a = routing.active();
        if (a == null) {
            return null;
        }
        TableSet t = a.tables();
        int row = t.row(guid);
        if (row < 0 || !t.hasRules()) {
            return null;
        }
        VcRules rules = t.tables().vcRules().get();
        List<String> ports = new ArrayList<>();
        for (int p = 1; p <= rules.ports(row); p++) {
            ports.add(rules.portClass(row, p).name().toLowerCase());
        }
        List<String> transitions = rules.transitions(row).stream().map(Object::toString).toList();
        SwitchPushState p = pusher.state(guid);
        long held = pusher.heldRulesHash(guid);
        return new Views.Vc(Guids.format(guid), t.version(), p != null && p.inSync(), rules.vcCount(),
                Guids.format(t.rulesHash(row)), held == HeldTable.RULES_UNKNOWN ? null : Guids.format(held),
                ports, transitions);
    }

    /**
     * The route from {@code src} to {@code dst} through the tables in force.
     *
     * @throws IllegalStateException before the first routing
     * @throws IllegalArgumentException when an index names no node, or both name the same node
     */
    public Views.Route route(int src, int dst) {
        ActiveRouting a = routing.active();
        if (a == null) {
            throw new IllegalStateException("no tables yet (state " + state.get() + ")");
        }
        FabricIndex index = a.fabric().index();
        if (tracer == null || tracerVersion != a.version()) {
            tracer = new PathTracer(RoutedFabric.of(index, a.tables().tables()));
            tracerVersion = a.version();
        }
        Trace r = tracer.trace(src, dst);
        List<Views.Hop> hops = new ArrayList<>(r.hops().size());
        for (Trace.Hop h : r.hops()) {
            hops.add(new Views.Hop(Guids.format(h.switchGuid()), a.fabric().switchByGuid(h.switchGuid())
                    .map(FabricSwitch::name).orElse(""), h.outPort()));
        }
        EndNode s = a.fabric().nodeByGuid(index.nodeGuid(index.nodeByDestination(src))).orElseThrow();
        EndNode d = a.fabric().nodeByGuid(index.nodeGuid(index.nodeByDestination(dst))).orElseThrow();
        return new Views.Route(src, dst, Guids.format(s.guid()), Guids.format(d.guid()), a.version(),
                r.outcome().name(), hops);
    }

    /** {@code GET /api/v1/faults}. */
    public FaultReport faults() {
        List<FaultReport.SwitchFault> sf = new ArrayList<>();
        for (Map.Entry<Long, Long> e : faults.failedSwitches().entrySet()) {
            ManagedSwitch ms = registry.get(e.getKey());
            String name = faults.failedName(e.getKey());
            if (name.isEmpty() && routing.active() != null) {
                // a switch that lost power had no session left when the ring's verdict came: name it from the fabric
                name = routing.active().fabric().switchByGuid(e.getKey()).map(FabricSwitch::name).orElse("");
            }
            sf.add(new FaultReport.SwitchFault(Guids.format(e.getKey()), name, "ring", e.getValue(),
                    ms != null && ms.admitted()));
        }
        List<FaultReport.LinkFault> lf = new ArrayList<>();
        if (routing.active() != null) {
            // 330,000 ports at 5,120 switches, on the control thread: the quarantine lookups (boxed keys) only for a
            // switch that has one; for every port they held the control thread (docs/performance.md, "Choices in the
            // code, measured")
            for (ManagedSwitch ms : registry.all()) {
                if (!ms.admitted()) {
                    continue;
                }
                boolean anyQuarantined = faults.flaps().hasQuarantined(ms.guid());
                for (int p = 1; p <= ms.ports().portCount(); p++) {
                    boolean q = anyQuarantined && faults.flaps().isQuarantined(ms.guid(), p);
                    if (!ms.ports().port(p).isUp() || q) {
                        long peer = faults.baselinePeer(ms.guid(), p);
                        if (peer != 0) {
                            lf.add(linkFault(ms, p, peer, q));
                        }
                    }
                }
            }
        }
        RingCoordinator ring = faults.ring();
        List<FaultReport.Unwatched> unwatched = new ArrayList<>();
        if (ring != null) {
            for (Map.Entry<Long, String> u : ring.unwatchedSwitches().entrySet()) {
                ManagedSwitch ms = registry.get(u.getKey());
                unwatched.add(new FaultReport.Unwatched(Guids.format(u.getKey()), ms == null ? "" : ms.name(),
                        u.getValue()));
            }
        }
        return new FaultReport(ring != null && ring.active(), ring == null ? 0 : ring.epoch(),
                ring == null ? 0 : ring.size(), sf, lf, faults.flaps().quarantined(), faults.reactions().completed(),
                faults.reactions().pendingEvents(), ring == null ? 0 : ring.awaitingAnswers(),
                ring == null ? 0 : ring.unconfirmedAnswers(), unwatched, faults.unreachable().count(),
                faults.unreachable().sample().stream()
                        .map(n -> new FaultReport.Node(Guids.format(n.guid()), n.name(), n.index())).toList(),
                drained());
    }

    /** A down port's link, its peer named from the first routed fabric (a node link names the node and its index). */
    private FaultReport.LinkFault linkFault(ManagedSwitch ms, int port, long peer, boolean quarantined) {
        Fabric baseline = faults.baseline();
        EndNode node = baseline == null ? null : baseline.nodeByGuid(peer).orElse(null);
        String peerName = node != null ? node.name() : baseline == null ? null
                : baseline.switchByGuid(peer).map(FabricSwitch::name).orElse(null);
        return new FaultReport.LinkFault(Guids.format(ms.guid()), ms.name(), port, Guids.format(peer), quarantined,
                peerName, node != null, node == null ? -1 : node.index());
    }
}
