package org.fabricmanager.daemon.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.store.DestinationIndexMap;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.daemon.testing.FabricReports;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologicalIndexer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiscoveryManagerTest {
    private static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,2;1,1)");
    private static final int SETTLE_MS = 500;
    private static final int MAX_WAIT_MS = 5_000;

    @TempDir
    Path state;

    private final ManualControlLoop loop = new ManualControlLoop();
    private final SwitchRegistry registry = new SwitchRegistry();
    private final MilestoneLog milestones = new MilestoneLog();
    private final List<String> settled = new ArrayList<>();

    private DiscoveryManager manager(PgftSpec expected) {
        return new DiscoveryManager(
                new DiscoverySettings(new DaemonConfig.Discovery(SETTLE_MS, MAX_WAIT_MS), expected),
                new DiscoverySources(registry, UnaryOperator.identity(), List::of, TopologicalIndexer::order,
                        new IndexMapStore(state), new RecognizingFabricChecker()),
                loop, milestones, Runnable::run, settled::add);
    }

    /** Connects switch {@code s} with {@code ports}: its reports, its admission, the change. */
    private ManagedSwitch connect(DiscoveryManager d, FabricSwitch s, List<PortRecord> ports) {
        FakeSession session = FakeSession.of(s.guid(), s.name(), s.ports(), 1);
        ManagedSwitch ms = registry.register(session, session.hello(), 0);
        for (PortRecord r : ports) {
            d.report(ms.ports(), r, false);
        }
        registry.admit(ms);
        d.admitted(ms.ports());
        d.changed();
        return ms;
    }

    @Test
    void settlesOnceNothingChangedForTheSettleWindowAndNotBefore() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricReports reports = new FabricReports(fabric);
        DiscoveryManager d = manager(null);
        List<FabricSwitch> switches = fabric.switches();
        for (int i = 0; i < switches.size(); i++) {
            connect(d, switches.get(i), reports.of(switches.get(i).guid()));
            loop.advance(SETTLE_MS - 100); // each report re-arms the window
        }
        assertThat(settled).isEmpty();
        assertThat(d.done()).isFalse();
        loop.advance(99);
        assertThat(settled).isEmpty();
        loop.advance(1);
        assertThat(settled).containsExactly("no change for 500 ms");
        assertThat(d.done()).isTrue();
        d.changed();
        loop.advance(10 * SETTLE_MS);
        assertThat(settled).as("after discovery, changes are the coordinator's").hasSize(1);
    }

    @Test
    void aFabricThatKeepsChangingSettlesAtTheMaximumWait() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricReports reports = new FabricReports(fabric);
        DiscoveryManager d = manager(null);
        ManagedSwitch leaf = connect(d, fabric.switches().get(0), reports.of(fabric.switches().get(0).guid()));
        for (int t = 0; t < MAX_WAIT_MS / 100 + 10 && settled.isEmpty(); t++) {
            loop.advance(100);
            d.report(leaf.ports(), t % 2 == 0 ? PortRecord.down(1) : reports.of(leaf.guid()).get(0), true);
            d.changed();
        }
        assertThat(settled).containsExactly("maximum discovery wait reached");
        assertThat(loop.nowMs()).isEqualTo(MAX_WAIT_MS);
    }

    @Test
    void theExpectedFabricEndsDiscoveryOnItsLastLinkWithItsCanonicalNumbering() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricReports reports = new FabricReports(fabric);
        DiscoveryManager d = manager(SPEC);
        for (FabricSwitch s : fabric.switches()) {
            assertThat(settled).isEmpty();
            connect(d, s, reports.of(s.guid()));
        }
        assertThat(settled).containsExactly("every expected switch and link is present");
        assertThat(loop.nowMs()).as("no waiting").isZero();
        TopologyBuilder.Result first = d.snapshot();
        loop.runPending(); // the check's result comes back as a control event
        assertThat(d.check().verdict()).isEqualTo(FabricCheck.Verdict.INTACT);
        assertThat(first.fabric().links()).hasSize(fabric.links().size());
        DestinationIndexMap offline = new DestinationIndexMap();
        offline.assign(TopologicalIndexer.order(fabric));
        assertThat(new IndexMapStore(state).load().asMap()).as("stored before use").isEqualTo(offline.asMap());
        assertThat(d.snapshot()).as("no report since: the same build").isSameAs(first);
        assertThat(milestones.since(0)).extracting(Milestone::kind).containsExactly(Milestone.Kind.FABRIC_DISCOVERED);
    }

    @Test
    void aMiswiredExpectedFabricWaitsForTheWindowAndSaysSo() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricReports reports = new FabricReports(fabric);
        // two leaves swap their cables to spine 0: every link is there, but not where the PGFT puts it
        long spine0 = PgftGenerator.switchGuid(2, 0);
        long leafA = PgftGenerator.switchGuid(1, 0);
        long leafB = PgftGenerator.switchGuid(1, 1);
        Link a = fabric.links().stream().filter(l -> l.a() == leafA && l.b() == spine0 || l.b() == leafA && l.a() == spine0)
                .findFirst().orElseThrow();
        Link b = fabric.links().stream().filter(l -> l.a() == leafB && l.b() == spine0 || l.b() == leafB && l.a() == spine0)
                .findFirst().orElseThrow();
        int spinePortA = a.a() == spine0 ? a.aPort() : a.bPort();
        int spinePortB = b.a() == spine0 ? b.aPort() : b.bPort();
        int leafPortA = a.a() == leafA ? a.aPort() : a.bPort();
        int leafPortB = b.a() == leafB ? b.aPort() : b.bPort();
        DiscoveryManager d = manager(SPEC);
        for (FabricSwitch s : fabric.switches()) {
            List<PortRecord> ports = new ArrayList<>(reports.of(s.guid()));
            if (s.guid() == spine0) {
                ports.set(spinePortA - 1, PortRecord.toSwitch(spinePortA, leafB, leafPortB, ""));
                ports.set(spinePortB - 1, PortRecord.toSwitch(spinePortB, leafA, leafPortA, ""));
            } else if (s.guid() == leafA) {
                ports.set(leafPortA - 1, PortRecord.toSwitch(leafPortA, spine0, spinePortB, ""));
            } else if (s.guid() == leafB) {
                ports.set(leafPortB - 1, PortRecord.toSwitch(leafPortB, spine0, spinePortA, ""));
            }
            connect(d, s, ports);
        }
        assertThat(settled).as("not the expected fabric: no early end").isEmpty();
        loop.advance(SETTLE_MS);
        assertThat(settled).hasSize(1);
        d.snapshot();
        loop.runPending();
        assertThat(d.check().verdict()).isNotEqualTo(FabricCheck.Verdict.INTACT);
    }

    @Test
    void anExpectedFabricWithLessThanHalfOfItsSwitchesWaitsOnUntilTheMaximumWait() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricReports reports = new FabricReports(fabric);
        DiscoveryManager d = manager(SPEC);
        List<FabricSwitch> switches = fabric.switches();
        int few = (switches.size() - 1) / 2;
        for (int i = 0; i < few; i++) {
            connect(d, switches.get(i), reports.of(switches.get(i).guid()));
        }
        loop.advance(3 * SETTLE_MS);
        assertThat(settled).as("%d of %d switches: still arriving", few, switches.size()).isEmpty();
        connect(d, switches.get(few), reports.of(switches.get(few).guid()));
        loop.advance(SETTLE_MS);
        assertThat(settled).as("half of them: the window ends discovery").containsExactly("no change for 500 ms");

        settled.clear();
        SwitchRegistry alone = new SwitchRegistry();
        DiscoveryManager lonely = new DiscoveryManager(
                new DiscoverySettings(new DaemonConfig.Discovery(SETTLE_MS, MAX_WAIT_MS), SPEC),
                new DiscoverySources(alone, UnaryOperator.identity(), List::of, TopologicalIndexer::order,
                        new IndexMapStore(state.resolve("alone")), new RecognizingFabricChecker()),
                loop, milestones, Runnable::run, settled::add);
        FabricSwitch last = switches.get(switches.size() - 1);
        FakeSession session = FakeSession.of(last.guid(), last.name(), last.ports(), 1);
        ManagedSwitch ms = alone.register(session, session.hello(), 0);
        for (PortRecord r : reports.of(last.guid())) {
            lonely.report(ms.ports(), r, false);
        }
        alone.admit(ms);
        lonely.admitted(ms.ports());
        lonely.changed();
        loop.advance(MAX_WAIT_MS);
        assertThat(settled).as("the maximum wait still ends it").containsExactly("maximum discovery wait reached");
    }

    /**
     * The race that made the status say CONVERGED on a re-route beside the intact fabric's verdict: the check of the
     * degraded snapshot ends after its routing is in force. Until it ends the routed check is pending, never the
     * verdict of the snapshot before; while discovering with a shape configured it is pending too, not "no expected
     * PGFT configured".
     */
    @Test
    void theRoutedFabricsVerdictIsPendingUntilItsOwnCheckEndsNeverTheFabricBefore() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricReports reports = new FabricReports(fabric);
        List<Runnable> held = new ArrayList<>();
        DiscoveryManager d = new DiscoveryManager(
                new DiscoverySettings(new DaemonConfig.Discovery(SETTLE_MS, MAX_WAIT_MS), SPEC),
                new DiscoverySources(registry, UnaryOperator.identity(), List::of, TopologicalIndexer::order,
                        new IndexMapStore(state), new RecognizingFabricChecker()),
                loop, milestones, held::add, settled::add);
        assertThat(d.check().verdict()).as("discovering, a shape configured").isEqualTo(FabricCheck.Verdict.PENDING);
        assertThat(d.check().summary()).contains(SPEC.toString()).doesNotContain("no expected PGFT configured");
        assertThat(d.routedCheck().verdict()).isEqualTo(FabricCheck.Verdict.PENDING);
        List<ManagedSwitch> admitted = new ArrayList<>();
        for (FabricSwitch s : fabric.switches()) {
            admitted.add(connect(d, s, reports.of(s.guid())));
        }
        d.snapshot();
        d.inForce(d.snapshotNumber());
        assertThat(held).as("the completeness test checked this build already").isEmpty();
        assertThat(d.routedCheck().verdict()).isEqualTo(FabricCheck.Verdict.INTACT);

        ManagedSwitch leaf = admitted.stream().filter(m -> m.guid() == PgftGenerator.switchGuid(1, 0)).findFirst()
                .orElseThrow();
        int uplink = leaf.ports().portCount();
        d.report(leaf.ports(), PortRecord.down(uplink), true);
        d.snapshot();
        d.inForce(d.snapshotNumber()); // the re-route is computed before the check ends
        assertThat(d.routedCheck().verdict()).as("the degraded fabric's check still runs")
                .isEqualTo(FabricCheck.Verdict.PENDING);
        held.remove(0).run();
        loop.runPending();
        assertThat(d.routedCheck().verdict()).isEqualTo(FabricCheck.Verdict.DEGRADED);
        assertThat(d.check().verdict()).isEqualTo(FabricCheck.Verdict.DEGRADED);

        d.report(leaf.ports(), reports.of(leaf.guid()).get(uplink - 1), true);
        d.snapshot(); // the link is back; the routing of this snapshot is not in force yet
        held.remove(0).run();
        loop.runPending();
        assertThat(d.routedCheck().verdict()).as("the routing in force is still the degraded fabric's")
                .isEqualTo(FabricCheck.Verdict.DEGRADED);
        d.inForce(d.snapshotNumber());
        assertThat(d.routedCheck().verdict()).isEqualTo(FabricCheck.Verdict.INTACT);
    }

    @Test
    void aMissingLinkIsADegradedFabricAfterTheWindow() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricReports reports = new FabricReports(fabric);
        DiscoveryManager d = manager(SPEC);
        long leaf = PgftGenerator.switchGuid(1, 2);
        for (FabricSwitch s : fabric.switches()) {
            List<PortRecord> ports = new ArrayList<>(reports.of(s.guid()));
            if (s.guid() == leaf) {
                ports.set(ports.size() - 1, PortRecord.down(ports.size()));
            }
            connect(d, s, ports);
        }
        assertThat(settled).isEmpty();
        loop.advance(SETTLE_MS);
        TopologyBuilder.Result r = d.snapshot();
        loop.runPending();
        assertThat(d.check().verdict()).isEqualTo(FabricCheck.Verdict.DEGRADED);
        assertThat(r.fabric().links()).hasSize(fabric.links().size() - 1);
    }

    @Test
    void theLedgerCountsWhatABuildFindsUnderAnyReportSequence() {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,2,3;1,2,2;1,2,1)"));
        FabricReports reports = new FabricReports(fabric);
        for (long seed = 1; seed <= 5; seed++) {
            Random random = new Random(seed);
            SwitchRegistry reg = new SwitchRegistry();
            DiscoveryManager d = new DiscoveryManager(
                    new DiscoverySettings(new DaemonConfig.Discovery(SETTLE_MS, MAX_WAIT_MS), null),
                    new DiscoverySources(reg, UnaryOperator.identity(), List::of, TopologicalIndexer::order,
                            new IndexMapStore(state.resolve("s" + seed)), new RecognizingFabricChecker()),
                    loop, milestones, Runnable::run, settled::add);
            List<ManagedSwitch> connected = new ArrayList<>();
            List<FabricSwitch> all = fabric.switches();
            for (int step = 0; step < 400; step++) {
                int op = random.nextInt(10);
                if (op < 3) {
                    FabricSwitch s = all.get(random.nextInt(all.size()));
                    if (reg.get(s.guid()) != null) {
                        continue;
                    }
                    FakeSession session = FakeSession.of(s.guid(), s.name(), s.ports(), 1);
                    ManagedSwitch ms = reg.register(session, session.hello(), 0);
                    for (PortRecord r : reports.of(s.guid())) {
                        d.report(ms.ports(), random.nextInt(8) == 0 ? PortRecord.down(r.port()) : r, false);
                    }
                    reg.admit(ms);
                    d.admitted(ms.ports());
                    connected.add(ms);
                } else if (op < 4 && !connected.isEmpty()) {
                    ManagedSwitch ms = connected.remove(random.nextInt(connected.size()));
                    d.leaving(ms.ports());
                    reg.remove(ms.session());
                } else if (!connected.isEmpty()) {
                    ManagedSwitch ms = connected.get(random.nextInt(connected.size()));
                    int port = 1 + random.nextInt(ms.ports().portCount());
                    PortRecord real = reports.of(ms.guid()).get(port - 1);
                    PortRecord r = switch (random.nextInt(3)) {
                        case 0 -> PortRecord.down(port);
                        case 1 -> real;
                        // a miscabling claim: someone else's port
                        default -> real.peerKind() == PortRecord.PeerKind.SWITCH
                                ? PortRecord.toSwitch(port, real.peerGuid(), 1 + random.nextInt(4), "") : real;
                    };
                    d.report(ms.ports(), r, true);
                }
                List<SwitchPorts> ports = new ArrayList<>();
                reg.forEachAdmitted(ports::add);
                TopologyBuilder.Result built = TopologyBuilder.build(ports, new DestinationIndexMap(), null,
                        TopologicalIndexer::order);
                long switchLinks = built.fabric().links().stream()
                        .filter(l -> built.fabric().isSwitch(l.a()) && built.fabric().isSwitch(l.b())).count();
                long nodePorts = 0;
                for (SwitchPorts p : ports) {
                    for (int i = 1; i <= p.portCount(); i++) {
                        if (p.port(i).isUp() && p.port(i).peerKind() == PortRecord.PeerKind.NODE) {
                            nodePorts++;
                        }
                    }
                }
                assertThat(d.ledger().confirmedSwitchLinks()).as("seed %d step %d", seed, step)
                        .isEqualTo(switchLinks);
                assertThat(d.ledger().nodePorts()).as("seed %d step %d", seed, step).isEqualTo(nodePorts);
            }
        }
    }

    @Test
    void theRefreshBuildsOffTheControlThreadAndKeepsTheFabricDerivedAheadOfALeaving() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricReports reports = new FabricReports(fabric);
        List<Runnable> offThread = new ArrayList<>();
        DiscoveryManager d = new DiscoveryManager(
                new DiscoverySettings(new DaemonConfig.Discovery(SETTLE_MS, MAX_WAIT_MS), null),
                new DiscoverySources(registry, UnaryOperator.identity(), List::of, TopologicalIndexer::order,
                        new IndexMapStore(state), new RecognizingFabricChecker()),
                loop, milestones, offThread::add, settled::add);
        discoverAll(d, fabric, reports);
        // a link goes down: the fabric is derived, and checked against a build 2 s later
        ManagedSwitch leaf = registry.get(PgftGenerator.switchGuid(1, 0));
        int uplink = leaf.ports().portCount();
        d.report(leaf.ports(), PortRecord.down(uplink), true);
        TopologyBuilder.Result derived = d.snapshot();
        assertThat(derived.fabric().links()).hasSize(fabric.links().size() - 1);
        loop.advance(2_000);
        assertThat(offThread).as("the refresh's build is handed to the check executor").hasSize(1);
        assertThat(d.last()).as("nothing replaced on the control thread").isSameAs(derived);

        // meanwhile a verdict on a top switch is checked: the fabric without it is derived ahead
        ManagedSwitch top = registry.get(PgftGenerator.switchGuid(2, 1));
        Fabric without = d.snapshotWithout(top.guid());
        assertThat(without).isNotNull();
        offThread.remove(0).run(); // the build, as the executor runs it, from copies of the reports
        loop.runPending();
        assertThat(d.last()).as("refreshed: same fabric").isNotSameAs(derived);
        assertThat(d.last().fabric()).isSameAs(derived.fabric());

        // the verdict is confirmed: the snapshot is the very fabric derived ahead (a routing prepared from it applies)
        d.leaving(top.ports());
        registry.remove(top.session());
        assertThat(d.snapshot().fabric()).isSameAs(without);
    }

    /** Connects every switch of {@code fabric} with its reports, lets discovery settle and takes the first snapshot. */
    private void discoverAll(DiscoveryManager d, Fabric fabric, FabricReports reports) {
        for (FabricSwitch s : fabric.switches()) {
            connect(d, s, reports.of(s.guid()));
        }
        loop.advance(SETTLE_MS);
        d.snapshot();
    }

    /** The fabric {@link TopologyBuilder} builds from the admitted switches' reports now. */
    private Fabric built() {
        List<SwitchPorts> ports = new ArrayList<>();
        registry.forEachAdmitted(ports::add);
        return TopologyBuilder.build(ports, new IndexMapStore(state).load(), null, TopologicalIndexer::order).fabric();
    }

    @Test
    void aNodesLinkGoingDownOrComingBackAndALeafLeavingAreDerivedUnlessANodeHasAnotherClaim() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricReports reports = new FabricReports(fabric);
        DiscoveryManager d = manager(null);
        discoverAll(d, fabric, reports);
        long derived = d.derivedSnapshots();

        // a node reboots: its leaf reports the port down; the node leaves the fabric, derived
        ManagedSwitch leaf0 = registry.get(PgftGenerator.switchGuid(1, 0));
        PortRecord node = leaf0.ports().port(1);
        assertThat(node.peerKind()).isEqualTo(PortRecord.PeerKind.NODE);
        d.report(leaf0.ports(), PortRecord.down(1), true);
        Fabric down = d.snapshot().fabric();
        assertThat(d.derivedSnapshots()).isEqualTo(++derived);
        assertThat(down.isNode(node.peerGuid())).isFalse();
        assertThat(down).isEqualTo(built());

        // it comes back with the destination index it had: derived too
        d.report(leaf0.ports(), node, true);
        assertThat(d.snapshot().fabric()).isEqualTo(built());
        assertThat(d.last().fabric().nodeByGuid(node.peerGuid()).orElseThrow().index())
                .isEqualTo(fabric.nodeByGuid(node.peerGuid()).orElseThrow().index());
        assertThat(d.derivedSnapshots()).isEqualTo(++derived);

        // a node the daemon has never seen takes its index in topological order: a build
        d.report(leaf0.ports(), PortRecord.toNode(1, 0x7777L, "newcomer"), true);
        assertThat(d.snapshot().fabric()).isEqualTo(built());
        assertThat(d.last().fabric().isNode(0x7777L)).isTrue();
        assertThat(d.derivedSnapshots()).isEqualTo(derived);
        d.report(leaf0.ports(), node, true);
        d.snapshot();
        derived = d.derivedSnapshots();

        // a leaf dies: derived ahead of its leaving (a routing is prepared from it) and used as it is
        ManagedSwitch leaf1 = registry.get(PgftGenerator.switchGuid(1, 1));
        Fabric without = d.snapshotWithout(leaf1.guid());
        assertThat(without).as("its nodes have no other claim").isNotNull();
        d.leaving(leaf1.ports());
        registry.remove(leaf1.session());
        assertThat(d.snapshot().fabric()).isSameAs(without).isEqualTo(built());
        assertThat(d.derivedSnapshots()).isEqualTo(++derived);

        // a node claimed by two leaves (a miscabling): the first claim's leaving gives it to the other, a build decides
        ManagedSwitch leaf2 = registry.get(PgftGenerator.switchGuid(1, 2));
        ManagedSwitch leaf3 = registry.get(PgftGenerator.switchGuid(1, 3));
        PortRecord claimed = leaf2.ports().port(1);
        d.report(leaf3.ports(), PortRecord.toNode(1, claimed.peerGuid(), ""), true);
        d.snapshot();
        derived = d.derivedSnapshots();
        assertThat(d.snapshotWithout(leaf2.guid())).as("a node of it has another claim").isNull();
        d.leaving(leaf2.ports());
        registry.remove(leaf2.session());
        Fabric moved = d.snapshot().fabric();
        assertThat(d.derivedSnapshots()).isEqualTo(derived);
        assertThat(moved.isNode(claimed.peerGuid())).as("the node went to its other claim").isTrue();
        assertThat(moved).isEqualTo(built());
        // and its link going down where another claim exists is a build too
        d.report(leaf3.ports(), PortRecord.toNode(2, claimed.peerGuid(), ""), true);
        d.snapshot();
        derived = d.derivedSnapshots();
        d.report(leaf3.ports(), PortRecord.down(1), true);
        assertThat(d.snapshot().fabric()).isEqualTo(built());
        assertThat(d.derivedSnapshots()).isEqualTo(derived);
    }

    @Test
    void fabricsDerivedFromTheLastChangesEqualFabricsBuiltFromScratch() {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,2,3;1,2,2;1,2,1)"));
        FabricReports reports = new FabricReports(fabric);
        long derived = 0;
        long joins = 0;
        int tentativesUsed = 0;
        int leavesWithNodesUsed = 0;
        for (long seed = 1; seed <= 8; seed++) {
            Random random = new Random(seed);
            SwitchRegistry reg = new SwitchRegistry();
            List<String> done = new ArrayList<>();
            DiscoveryManager d = new DiscoveryManager(
                    new DiscoverySettings(new DaemonConfig.Discovery(SETTLE_MS, MAX_WAIT_MS), null),
                    new DiscoverySources(reg, UnaryOperator.identity(), List::of, TopologicalIndexer::order,
                            new IndexMapStore(state.resolve("d" + seed)), new RecognizingFabricChecker()),
                    loop, milestones, Runnable::run, done::add);
            List<ManagedSwitch> connected = new ArrayList<>();
            for (FabricSwitch s : fabric.switches()) {
                FakeSession session = FakeSession.of(s.guid(), s.name(), s.ports(), 1);
                ManagedSwitch ms = reg.register(session, session.hello(), 0);
                for (PortRecord r : reports.of(s.guid())) {
                    d.report(ms.ports(), r, false);
                }
                reg.admit(ms);
                d.admitted(ms.ports());
                d.changed();
                connected.add(ms);
            }
            loop.advance(SETTLE_MS);
            d.snapshot();
            List<FabricSwitch> gone = new ArrayList<>();
            for (int step = 0; step < 150; step++) {
                int changes = 1 + random.nextInt(3);
                Fabric tentative = null;
                boolean nodesLeft = false;
                boolean leavesWithNodes = false;
                for (int c = 0; c < changes; c++) {
                    int op = random.nextInt(12);
                    if (op == 0 && connected.size() > 2) {
                        ManagedSwitch ms = connected.remove(random.nextInt(connected.size()));
                        if (c == 0) {
                            // a verdict on it is being checked: the fabric without it is derived ahead (a routing is
                            // prepared from it); whatever else happens, the snapshot is right
                            tentative = d.snapshotWithout(ms.guid());
                        }
                        for (int p = 1; p <= ms.ports().portCount(); p++) {
                            // a node of it with another claim goes there: a build decides, not the fabric derived ahead
                            PortRecord r = ms.ports().port(p);
                            nodesLeft |= r.isUp() && r.peerKind() == PortRecord.PeerKind.NODE
                                    && d.ledger().nodeClaims(r.peerGuid()) > 1;
                            leavesWithNodes |= r.isUp() && r.peerKind() == PortRecord.PeerKind.NODE;
                        }
                        d.leaving(ms.ports());
                        reg.remove(ms.session());
                        gone.add(fabric.switchByGuid(ms.guid()).orElseThrow());
                    } else if (op == 1 && !gone.isEmpty()) {
                        FabricSwitch s = gone.remove(random.nextInt(gone.size()));
                        FakeSession session = FakeSession.of(s.guid(), s.name(), s.ports(), 2);
                        ManagedSwitch ms = reg.register(session, session.hello(), 0);
                        for (PortRecord r : reports.of(s.guid())) {
                            d.report(ms.ports(), r, false);
                        }
                        reg.admit(ms);
                        d.admitted(ms.ports());
                        connected.add(ms);
                    } else {
                        ManagedSwitch ms = connected.get(random.nextInt(connected.size()));
                        int port = 1 + random.nextInt(ms.ports().portCount());
                        PortRecord real = reports.of(ms.guid()).get(port - 1);
                        PortRecord r = switch (random.nextInt(5)) {
                            case 0, 1 -> ms.ports().port(port).isUp() ? PortRecord.down(port) : real;
                            case 2 -> real;
                            // a second claim of some node: neither port gets it
                            case 3 -> PortRecord.toNode(port, fabric.nodes().get(random.nextInt(fabric.nodes().size())).guid(), "");
                            default -> real.peerKind() == PortRecord.PeerKind.SWITCH
                                    ? PortRecord.toSwitch(port, real.peerGuid(), 1 + random.nextInt(4), "") : real;
                        };
                        d.report(ms.ports(), r, true);
                    }
                }
                Fabric snapshot = d.snapshot().fabric();
                if (tentative != null && changes == 1 && !nodesLeft) {
                    // its leaving alone: the very fabric derived ahead, so the prepared routing is the one installed
                    assertThat(snapshot).as("seed %d step %d", seed, step).isSameAs(tentative);
                    tentativesUsed++;
                    leavesWithNodesUsed += leavesWithNodes ? 1 : 0;
                }
                List<SwitchPorts> ports = new ArrayList<>();
                reg.forEachAdmitted(ports::add);
                DestinationIndexMap indices = new IndexMapStore(state.resolve("d" + seed)).load();
                Fabric built = TopologyBuilder.build(ports, indices, null, TopologicalIndexer::order).fabric();
                assertThat(snapshot).as("seed %d step %d", seed, step).isEqualTo(built);
            }
            derived += d.derivedSnapshots();
            joins += d.derivedJoins();
        }
        assertThat(derived).as("changes that touch no node claim are derived, not built").isGreaterThan(150);
        assertThat(joins).as("switches back with switch links only join by derivation").isGreaterThan(10);
        assertThat(tentativesUsed).as("fabrics derived ahead of a leaving, used as they were").isGreaterThan(10);
        assertThat(leavesWithNodesUsed).as("leaves among them, their nodes leaving with them").isGreaterThanOrEqualTo(2);
    }
}
