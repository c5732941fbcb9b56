package org.fabricmanager.daemon.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.faults.Drains;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.daemon.testing.FabricReports;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.PortRef;
import org.fabricmanager.topology.TopologicalIndexer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check against the expected shape tells drained parts from missing ones: routing goes around a drained switch or
 * cable, but a drained part that is connected and up is not missing. The verdict stays about the cabling (INTACT with
 * only drains, DEGRADED when something is missing besides, a drained cable that went down is missing), and the summary
 * and counts say what is drained.
 */
class DrainedCheckTest {
    private static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,2;1,1)");
    private static final String INTACT = "INTACT " + SPEC + " (given, by GUID)";

    @TempDir
    Path state;

    private final ManualControlLoop loop = new ManualControlLoop();
    private final SwitchRegistry registry = new SwitchRegistry();
    private final Drains drains = new Drains(null);
    private final Map<Long, ManagedSwitch> admitted = new HashMap<>();
    /** Ports a quarantine hides, as the fault manager's mask would. */
    private final List<PortRef> quarantined = new ArrayList<>();

    /** A manager with every switch of {@code fabric} admitted, reporting every cable up. */
    private DiscoveryManager discovered(Fabric fabric) {
        UnaryOperator<SwitchPorts> quarantine = p -> {
            SwitchPorts copy = p.copy();
            quarantined.stream().filter(q -> q.guid() == p.guid()).forEach(q -> copy.update(PortRecord.down(q.port())));
            return copy;
        };
        DiscoveryManager d = new DiscoveryManager(
                new DiscoverySettings(new DaemonConfig.Discovery(500, 5_000), SPEC),
                new DiscoverySources(registry, quarantine, drains, TopologicalIndexer::order,
                        new IndexMapStore(state), new RecognizingFabricChecker()),
                loop, new MilestoneLog(), Runnable::run, why -> { });
        FabricReports reports = new FabricReports(fabric);
        for (FabricSwitch s : fabric.switches()) {
            FakeSession session = FakeSession.of(s.guid(), s.name(), s.ports(), 1);
            ManagedSwitch ms = registry.register(session, session.hello(), 0);
            for (PortRecord r : reports.of(s.guid())) {
                d.report(ms.ports(), r, false);
            }
            registry.admit(ms);
            d.admitted(ms.ports());
            admitted.put(s.guid(), ms);
            d.changed();
        }
        return d;
    }

    /** The check of a snapshot taken now (the change of drains, as the daemon does, invalidates the last build). */
    private FabricCheck checkNow(DiscoveryManager d) {
        d.invalidate();
        d.snapshot();
        loop.runPending();
        return d.check();
    }

    private static Link spineCable(Fabric fabric, long spine) {
        return fabric.links().stream().filter(l -> l.a() == spine || l.b() == spine).findFirst().orElseThrow();
    }

    @Test
    void aDrainedCableThatIsUpIsDrainedNotMissing() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        DiscoveryManager d = discovered(fabric);
        assertThat(checkNow(d).summary()).isEqualTo(INTACT);
        Link cable = spineCable(fabric, PgftGenerator.switchGuid(2, 0));
        drains.drain(new PortRef(cable.b(), cable.bPort()), 0);

        FabricCheck c = checkNow(d);
        assertThat(d.last().fabric().links()).as("routing goes around it").hasSize(fabric.links().size() - 1);
        assertThat(c.verdict()).isEqualTo(FabricCheck.Verdict.INTACT);
        assertThat(c.summary()).isEqualTo(INTACT + "; 1 link drained");
        assertThat(c.missingLinkCount()).isZero();
        assertThat(c.drainedLinkCount()).isEqualTo(1);
        assertThat(c.drainedSwitchCount()).isZero();
    }

    @Test
    void aDrainedCableThatGoesDownIsMissingAndAnotherCableMissingDegradesBesideADrain() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        DiscoveryManager d = discovered(fabric);
        Link drained = spineCable(fabric, PgftGenerator.switchGuid(2, 0));
        Link pulled = spineCable(fabric, PgftGenerator.switchGuid(2, 1));
        drains.drain(new PortRef(drained.a(), drained.aPort()), 0);
        pull(d, pulled);
        FabricCheck both = checkNow(d);
        assertThat(both.verdict()).isEqualTo(FabricCheck.Verdict.DEGRADED);
        assertThat(both.summary()).endsWith(": 1 missing link; 1 link drained");
        assertThat(both.missingLinkCount()).isEqualTo(1);
        assertThat(both.missingLinks()).singleElement().asString().contains(Guids.format(pulled.a()) + ":" + pulled.aPort())
                .contains(Guids.format(pulled.b()) + ":" + pulled.bPort());

        pull(d, drained); // the optic taken out for the maintenance the drain was for
        FabricCheck down = checkNow(d);
        assertThat(down.summary()).endsWith(": 2 missing links").doesNotContain("drained");
        assertThat(down.drainedLinkCount()).isZero();
    }

    @Test
    void aDrainedSpineAndAForcedDrainOfALeafAreDrainedWithTheirCablesAndNodes() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        DiscoveryManager d = discovered(fabric);
        long spine = PgftGenerator.switchGuid(2, 1);
        drains.drain(new PortRef(spine, 0), 0);
        FabricCheck c = checkNow(d);
        assertThat(d.last().fabric().links()).noneMatch(l -> l.a() == spine || l.b() == spine);
        assertThat(c.summary()).isEqualTo(INTACT + "; 1 switch drained");
        assertThat(c.drainedSwitchCount()).isEqualTo(1);

        long leaf = PgftGenerator.switchGuid(1, 0);
        Link nodeCable = fabric.links().stream().filter(l -> l.a() == leaf && fabric.isNode(l.b())).findFirst()
                .orElseThrow();
        drains.drain(new PortRef(leaf, 0), 0);
        drains.drain(new PortRef(leaf, nodeCable.aPort()), 0); // also named as a cable: counted as one
        FabricCheck leafToo = checkNow(d);
        long leafNodes = fabric.links().stream().filter(l -> l.a() == leaf && fabric.isNode(l.b())).count();
        assertThat(d.last().fabric().nodes()).as("its nodes are cut off from routing")
                .hasSize(fabric.nodes().size() - (int) leafNodes);
        assertThat(leafToo.verdict()).isEqualTo(FabricCheck.Verdict.INTACT);
        assertThat(leafToo.summary()).isEqualTo(INTACT + "; 2 switches and 1 link drained");

        drains.undrain(new PortRef(spine, 0));
        drains.undrain(new PortRef(leaf, 0));
        drains.undrain(new PortRef(leaf, nodeCable.aPort()));
        assertThat(checkNow(d).summary()).isEqualTo(INTACT);
    }

    @Test
    void aQuarantinedCableStaysMissingWhenItIsDrainedToo() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        DiscoveryManager d = discovered(fabric);
        Link cable = spineCable(fabric, PgftGenerator.switchGuid(2, 0));
        quarantined.add(new PortRef(cable.a(), cable.aPort()));
        drains.drain(new PortRef(cable.b(), cable.bPort()), 0);
        FabricCheck c = checkNow(d);
        assertThat(c.verdict()).isEqualTo(FabricCheck.Verdict.DEGRADED);
        assertThat(c.summary()).endsWith(": 1 missing link");
    }

    @Test
    void aDrainedNodeThatNeverHadADestinationIndexIsCheckedWithOneAboveTheRest() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        EndNode late = fabric.nodes().get(fabric.nodes().size() - 1);
        Link cable = fabric.links().stream().filter(l -> l.b() == late.guid()).findFirst().orElseThrow();
        // drained before the node was ever seen: it has no index, and routing never numbers it
        drains.drain(new PortRef(cable.a(), cable.aPort()), 0);
        DiscoveryManager d = discovered(fabric);
        FabricCheck c = checkNow(d);
        assertThat(d.last().fabric().isNode(late.guid())).isFalse();
        assertThat(c.summary()).isEqualTo(INTACT + "; 1 link drained");
    }

    @Test
    void theSummarySaysHowManySwitchesAndLinksAreDrained() {
        FabricCheck intact = new FabricCheck(SPEC.toString(), FabricCheck.Verdict.INTACT, INTACT, 0, List.of(), 0,
                List.of(), 0, List.of(), 0, List.of());
        assertThat(intact.withDrained(0, 0)).isSameAs(intact);
        assertThat(intact.withDrained(0, 1).summary()).isEqualTo(INTACT + "; 1 link drained");
        assertThat(intact.withDrained(1, 0).summary()).isEqualTo(INTACT + "; 1 switch drained");
        assertThat(intact.withDrained(3, 12).summary()).isEqualTo(INTACT + "; 3 switches and 12 links drained");
        FabricCheck drained = intact.withDrained(3, 12);
        assertThat(drained.verdict()).isEqualTo(FabricCheck.Verdict.INTACT);
        assertThat(drained.drainedSwitchCount()).isEqualTo(3);
        assertThat(drained.drainedLinkCount()).isEqualTo(12);
    }

    /** Both ends of {@code cable} report their port down. */
    private void pull(DiscoveryManager d, Link cable) {
        d.report(admitted.get(cable.a()).ports(), PortRecord.down(cable.aPort()), true);
        d.report(admitted.get(cable.b()).ports(), PortRecord.down(cable.bPort()), true);
    }
}
