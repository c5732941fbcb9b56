package org.fabricmanager.daemon.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
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
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.HdftGenerator;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.PortRef;
import org.fabricmanager.topology.TopologicalIndexer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The check against the expected shape tells drained parts from missing ones: a drained switch or cable that is there
 * and up is cabling as ordered (the verdict stays INTACT, the summary says how many are drained, the lists name them),
 * a drained cable that goes down is missing like any other, and drained and missing parts are counted apart. Matched
 * by canonical GUID and, with the GUIDs relabelled (as OpenSM's switches under ibsim have them), by structure.
 */
class DrainedCheckTest {
    private static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)");

    @TempDir
    Path state;

    private final ManualControlLoop loop = new ManualControlLoop();
    private final SwitchRegistry registry = new SwitchRegistry();
    private final Drains drains = new Drains(null);
    private final Map<Long, ManagedSwitch> admitted = new HashMap<>();

    /** The fabric's switches connected, every cable up, discovery settled and the intact fabric checked. */
    private DiscoveryManager discovered(Fabric fabric, DiscoverySettings settings) {
        DiscoveryManager d = new DiscoveryManager(settings,
                new DiscoverySources(registry, drains::masked, () -> drains.view().keySet(), TopologicalIndexer::order,
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
            d.changed();
            admitted.put(s.guid(), ms);
        }
        assertThat(checkNow(d).verdict()).as("before any drain").isEqualTo(FabricCheck.Verdict.INTACT);
        return d;
    }

    private DiscoveryManager discovered(Fabric fabric) {
        return discovered(fabric, new DiscoverySettings(new DaemonConfig.Discovery(500, 5_000), SPEC));
    }

    /** The check of a snapshot taken now, after a drain or a report changed what the fabric is (as the daemon does). */
    private FabricCheck checkNow(DiscoveryManager d) {
        d.invalidate();
        d.snapshot();
        loop.runPending();
        return d.check();
    }

    private static Fabric fabric(boolean relabelled) {
        Fabric canonical = PgftGenerator.generate(SPEC);
        return relabelled ? TestFabrics.relabel(canonical, 65) : canonical;
    }

    private static String matching(boolean relabelled) {
        return "INTACT " + SPEC + " (given, " + (relabelled ? "by structure" : "by GUID") + ")";
    }

    /** The {@code skip}-th cable between two switches whose first end is a switch named {@code prefix...}. */
    private static Link cableOf(Fabric fabric, String prefix, int skip) {
        return fabric.links().stream().filter(l -> fabric.isSwitch(l.b())
                && fabric.switchByGuid(l.a()).orElseThrow().name().startsWith(prefix)).skip(skip).findFirst().orElseThrow();
    }

    private static long switchNamed(Fabric fabric, String name) {
        return fabric.switches().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow().guid();
    }

    /** Port {@code port} of switch {@code guid} reports down. */
    private void down(DiscoveryManager d, long guid, int port) {
        d.report(admitted.get(guid).ports(), PortRecord.down(port), true);
    }

    @ParameterizedTest(name = "relabelled {0}")
    @ValueSource(booleans = {false, true})
    void aDrainedCableThatIsUpIsDrainedNotMissingAndMissingOnceItGoesDown(boolean relabelled) {
        Fabric fabric = fabric(relabelled);
        DiscoveryManager d = discovered(fabric);
        Link cable = cableOf(fabric, "s1-1", 0);
        drains.drain(new PortRef(cable.a(), cable.aPort()), 0);

        FabricCheck drained = checkNow(d);
        assertThat(drained.verdict()).isEqualTo(FabricCheck.Verdict.INTACT);
        assertThat(drained.summary()).isEqualTo(matching(relabelled) + ": 1 link drained");
        assertThat(drained.missingLinkCount()).isZero();
        assertThat(drained.drainedSwitchCount()).isZero();
        assertThat(drained.drainedLinkCount()).isEqualTo(1);
        Link named = cable.normalized();
        assertThat(drained.drainedLinks()).containsExactly(String.format("0x%016x:%d - 0x%016x:%d", named.a(),
                named.aPort(), named.b(), named.bPort()));
        assertThat(d.last().fabric().links()).as("routing still goes around it").hasSize(fabric.links().size() - 1);

        down(d, cable.a(), cable.aPort());
        down(d, cable.b(), cable.bPort());
        FabricCheck pulled = checkNow(d);
        assertThat(pulled.verdict()).as("drained and then pulled: gone").isEqualTo(FabricCheck.Verdict.DEGRADED);
        assertThat(pulled.summary()).endsWith(": 1 missing link");
        assertThat(pulled.drainedLinkCount()).isZero();
        assertThat(pulled.drainedLinks()).isEmpty();
    }

    @ParameterizedTest(name = "relabelled {0}")
    @ValueSource(booleans = {false, true})
    void drainedSwitchesAreSwitchesDrainedTheirCablesAndNodesWithThem(boolean relabelled) {
        Fabric fabric = fabric(relabelled);
        DiscoveryManager d = discovered(fabric);
        long spine = switchNamed(fabric, "s3-5");
        long leaf = switchNamed(fabric, "s1-6");
        drains.drain(new PortRef(spine, 0), 0);
        drains.drain(new PortRef(leaf, 0), 0);

        FabricCheck c = checkNow(d);
        assertThat(c.verdict()).isEqualTo(FabricCheck.Verdict.INTACT);
        assertThat(c.summary()).isEqualTo(matching(relabelled) + ": 2 switches drained");
        assertThat(c.drainedSwitchCount()).isEqualTo(2);
        assertThat(c.drainedSwitches()).containsExactlyInAnyOrder("s3-5 " + String.format("0x%016x", spine),
                "s1-6 " + String.format("0x%016x", leaf));
        assertThat(c.drainedLinkCount()).as("a drained switch's cables count with it").isZero();
        assertThat(d.last().fabric().nodes()).as("the leaf's nodes are routed around")
                .hasSize(fabric.nodes().size() - SPEC.m(1));
    }

    @ParameterizedTest(name = "relabelled {0}")
    @ValueSource(booleans = {false, true})
    void aDrainedNodeCableAndAMissingCableAreCountedApart(boolean relabelled) {
        Fabric fabric = fabric(relabelled);
        DiscoveryManager d = discovered(fabric);
        long leaf = switchNamed(fabric, "s1-3");
        drains.drain(new PortRef(leaf, 2), 0); // port 2 of a leaf: an end node's cable
        Link pulled = cableOf(fabric, "s2-9", 1);
        down(d, pulled.a(), pulled.aPort());
        down(d, pulled.b(), pulled.bPort());

        FabricCheck c = checkNow(d);
        assertThat(c.verdict()).isEqualTo(FabricCheck.Verdict.DEGRADED);
        assertThat(c.summary()).isEqualTo(matching(relabelled).replace("INTACT", "DEGRADED")
                + ": 1 missing link, 1 link drained");
        assertThat(c.missingLinkCount()).isEqualTo(1);
        assertThat(c.drainedLinkCount()).isEqualTo(1);
        assertThat(c.drainedLinks().get(0)).startsWith(String.format("0x%016x:2 - ", leaf));
    }

    @Test
    void aDrainedCableOfATwoDimensionalFatTreeIsDrainedNotMissing() {
        HdftSpec spec = HdftSpec.parse("HDFT(4x4;2;1;1)");
        Fabric fabric = HdftGenerator.generate(spec);
        DiscoveryManager d = discovered(fabric, new DiscoverySettings(new DaemonConfig.Discovery(500, 5_000), null, spec));
        Link cable = fabric.links().stream().filter(l -> fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())).findFirst()
                .orElseThrow();
        drains.drain(new PortRef(cable.b(), cable.bPort()), 0); // named by its other end

        FabricCheck c = checkNow(d);
        assertThat(c.verdict()).isEqualTo(FabricCheck.Verdict.INTACT);
        assertThat(c.summary()).startsWith("INTACT " + spec).endsWith(": 1 link drained");
        assertThat(c.drainedLinkCount()).isEqualTo(1);
    }
}
