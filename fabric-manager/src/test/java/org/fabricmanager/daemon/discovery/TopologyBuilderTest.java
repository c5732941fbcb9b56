package org.fabricmanager.daemon.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.store.DestinationIndexMap;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologicalIndexer;
import org.junit.jupiter.api.Test;

class TopologyBuilderTest {
    static final List<String> SPECS = List.of("PGFT(2;4,4;1,4;1,1)", "PGFT(3;2,2,3;1,2,2;1,2,1)",
            "PGFT(3;4,4,4;1,4,4;1,1,1)", "PGFT(3;3,2,4;1,2,3;1,2,1)", "PGFT(2;6,3;1,3;1,2)", "PGFT(1;5;1;1)");

    /** What the agents of {@code fabric} report. */
    static Map<Long, SwitchPorts> reports(Fabric fabric) {
        Map<Long, SwitchPorts> map = new HashMap<>();
        Map<Long, String> names = new HashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            map.put(s.guid(), new SwitchPorts(s.guid(), s.name(), s.ports()));
            names.put(s.guid(), s.name());
        }
        for (EndNode n : fabric.nodes()) {
            names.put(n.guid(), n.name());
        }
        for (Link l : fabric.links()) {
            report(map, fabric, names, l.a(), l.aPort(), l.b(), l.bPort());
            report(map, fabric, names, l.b(), l.bPort(), l.a(), l.aPort());
        }
        return map;
    }

    private static void report(Map<Long, SwitchPorts> map, Fabric f, Map<Long, String> names, long a, int ap, long b, int bp) {
        SwitchPorts s = map.get(a);
        if (s == null) {
            return;
        }
        s.update(f.isNode(b) ? PortRecord.toNode(ap, b, names.get(b)) : PortRecord.toSwitch(ap, b, bp, names.get(b)));
    }

    @Test
    void reportsOfACanonicalPgftRebuildItExactlyWithCanonicalIndices() {
        for (String spec : SPECS) {
            Fabric canonical = PgftGenerator.generate(PgftSpec.parse(spec));
            DestinationIndexMap indices = new DestinationIndexMap();
            TopologyBuilder.Result r = TopologyBuilder.build(reports(canonical).values(), indices, null, TopologicalIndexer::order);
            assertThat(r.issues()).as(spec).isEmpty();
            assertThat(r.newIndices()).isEqualTo(canonical.nodes().size());
            assertThat(r.fabric()).as(spec).isEqualTo(canonical.withPgft(null));
        }
    }

    @Test
    void degradedFabricsKeepEveryNodeIndexAndNewNodesTakeFreeOnes() {
        long seed = 42;
        Random random = new Random(seed);
        for (String spec : SPECS) {
            Fabric canonical = PgftGenerator.generate(PgftSpec.parse(spec));
            DestinationIndexMap indices = new DestinationIndexMap();
            TopologyBuilder.build(reports(canonical).values(), indices, null, TopologicalIndexer::order);
            int switches = PgftSpec.parse(spec).h() > 1 ? 1 : 0;
            Fabric degraded = Degrader.degrade(canonical, DegradationPlan.random(0.2, switches, random.nextLong()));
            TopologyBuilder.Result r = TopologyBuilder.build(reports(degraded).values(), indices, null, TopologicalIndexer::order);
            assertThat(r.newIndices()).isZero();
            for (EndNode n : r.fabric().nodes()) {
                assertThat(n.index()).as("%s seed %d", spec, seed).isEqualTo(canonical.nodeByGuid(n.guid()).orElseThrow().index());
            }
        }
    }

    @Test
    void aNewLeafGetsFreeIndicesWithoutMovingOthers() {
        Fabric canonical = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"));
        DestinationIndexMap indices = new DestinationIndexMap();
        indices.put(PgftGenerator.nodeGuid(5), 40);
        indices.put(PgftGenerator.nodeGuid(0), 1);
        TopologyBuilder.Result r = TopologyBuilder.build(reports(canonical).values(), indices, null, TopologicalIndexer::order);
        assertThat(r.newIndices()).isEqualTo(14);
        assertThat(indices.indexOf(PgftGenerator.nodeGuid(5))).isEqualTo(40);
        assertThat(indices.indexOf(PgftGenerator.nodeGuid(0))).isEqualTo(1);
        assertThat(indices.indexOf(PgftGenerator.nodeGuid(1))).isEqualTo(0);
        assertThat(indices.indexOf(PgftGenerator.nodeGuid(2))).isEqualTo(2);
        assertThat(indices.indexOf(PgftGenerator.nodeGuid(15))).isEqualTo(14);
    }

    @Test
    void oneSidedAndContradictedClaimsAreNotLinks() {
        Fabric canonical = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
        Map<Long, SwitchPorts> reports = reports(canonical);
        long leaf0 = PgftGenerator.switchGuid(1, 0);
        long spine0 = PgftGenerator.switchGuid(2, 0);
        // the spine's port 1 (to leaf 0 port 3) now claims leaf 1 port 3: both claims are contradicted
        reports.get(spine0).update(PortRecord.toSwitch(1, PgftGenerator.switchGuid(1, 1), 3, "s1-1"));
        // leaf 0 port 4 claims a switch that is not connected
        reports.get(leaf0).update(PortRecord.toSwitch(4, 0x1234L, 1, "ghost"));
        TopologyBuilder.Result r = TopologyBuilder.build(reports.values(), new DestinationIndexMap(), null, TopologicalIndexer::order);
        assertThat(r.fabric().links()).hasSize(canonical.links().size() - 2);
        // contradicted: spine0:1 (leaf1:3 names spine0:2), leaf0:3 (spine0:1 names leaf1:3), spine1:1 (leaf0:4 names the ghost)
        assertThat(r.issues()).extracting(LinkIssue::kind).containsExactlyInAnyOrder(LinkIssue.Kind.CONTRADICTED,
                LinkIssue.Kind.CONTRADICTED, LinkIssue.Kind.CONTRADICTED, LinkIssue.Kind.PEER_NOT_CONNECTED);
    }

    @Test
    void aNodeClaimedTwiceGoesToNeitherAndBothClaimsAreReported() {
        Fabric canonical = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
        Map<Long, SwitchPorts> reports = reports(canonical);
        long leaf1 = PgftGenerator.switchGuid(1, 1);
        reports.get(leaf1).update(PortRecord.toNode(1, PgftGenerator.nodeGuid(0), "n0"));
        TopologyBuilder.Result r = TopologyBuilder.build(reports.values(), new DestinationIndexMap(), null, TopologicalIndexer::order);
        assertThat(r.issues()).extracting(LinkIssue::kind).containsExactly(LinkIssue.Kind.NODE_CONFLICT,
                LinkIssue.Kind.NODE_CONFLICT);
        assertThat(r.issues()).extracting(i -> i.toString()).allMatch(t -> t.contains("neither gets it"));
        // node 0 (claimed twice) and node 2 (whose port now claims node 0) are out; nodes 1 and 3 stay
        assertThat(r.fabric().nodes()).extracting(EndNode::guid).containsExactlyInAnyOrder(PgftGenerator.nodeGuid(1),
                PgftGenerator.nodeGuid(3));
    }

    @Test
    void claimOnAConfirmedLinkIsAConflict() {
        Fabric canonical = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
        Map<Long, SwitchPorts> reports = reports(canonical);
        long spine0 = PgftGenerator.switchGuid(2, 0);
        long impostor = 0x3000000000000000L;
        List<PortRecord> claims = new ArrayList<>(List.of(PortRecord.toSwitch(1, spine0, 1, "s2-0")));
        assertThat(NeighbourConflicts.find(impostor, claims, reports::get)).get().asString().contains("both ends agree");
        // a claim on a free port is fine
        reports.get(spine0).update(PortRecord.down(2));
        assertThat(NeighbourConflicts.find(impostor, List.of(PortRecord.toSwitch(1, spine0, 2, "")), reports::get)).isEmpty();
        assertThat(NeighbourConflicts.find(impostor, List.of(PortRecord.toSwitch(1, spine0, 2, ""),
                PortRecord.toSwitch(2, spine0, 2, "")), reports::get)).get().asString().contains("both claim");
    }

    @Test
    void recognitionFindsMissingAndMiswiredParts() {
        PgftSpec spec = PgftSpec.parse("PGFT(3;2,2,3;1,2,2;1,2,1)");
        Fabric canonical = PgftGenerator.generate(spec);
        RecognizingFabricChecker checker = new RecognizingFabricChecker();
        assertThat(checker.check(canonical, spec).verdict()).isEqualTo(FabricCheck.Verdict.INTACT);
        Fabric degraded = canonical.withoutSwitches(List.of(PgftGenerator.switchGuid(3, 0)));
        degraded = degraded.withoutLinks(List.of(degraded.links().get(degraded.links().size() - 1)));
        FabricCheck c = checker.check(degraded, spec);
        assertThat(c.verdict()).isEqualTo(FabricCheck.Verdict.DEGRADED);
        assertThat(c.missingSwitchCount()).isEqualTo(1);
        assertThat(c.missingSwitches()).containsExactly("s3-0 0x1000000300000000");
        assertThat(c.missingLinkCount()).as("links of missing switches are not listed").isEqualTo(1);
        assertThat(c.summary()).startsWith("DEGRADED " + spec);
        List<Link> links = new ArrayList<>(canonical.links());
        Link leafLeaf = new Link(PgftGenerator.switchGuid(1, 0), 5, PgftGenerator.switchGuid(1, 1), 5);
        links.removeIf(l -> l.touches(leafLeaf.a(), 5) || l.touches(leafLeaf.b(), 5));
        links.add(leafLeaf);
        FabricCheck m = checker.check(new Fabric(null, canonical.switches(), canonical.nodes(), links), spec);
        assertThat(m.verdict()).isEqualTo(FabricCheck.Verdict.MISWIRED);
        assertThat(m.miswiredCount()).isPositive();
        assertThat(m.miswired()).anyMatch(p -> p.startsWith("LEAF_TO_LEAF"));
    }
}
