package org.fabricmanager.routing.baseline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.analysis.DeadlockAnalyzer;
import org.fabricmanager.routing.analysis.DeadlockReport;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

class RootDetectorTest {

    @Test
    void histogramsCountNodesPerHopDistance() {
        FabricIndex index = TestFabrics.canonical("PGFT(2;4,4;1,4;1,1)").index();
        int[][] histogram = RootDetector.hopHistograms(index);
        // ids 0-3 are leaves, 4-7 spines (GUID order)
        assertThat(histogram[0]).containsExactly(0, 4, 0, 12);
        assertThat(histogram[5]).containsExactly(0, 0, 16, 0);
    }

    @Test
    void findsExactlyTheTopLevelOfIntactFatTrees() {
        String[] specs = {
                "PGFT(1;6;1;1)",
                "PGFT(2;4,4;1,4;1,1)",
                "PGFT(2;2,20;1,2;1,1)",
                "PGFT(2;3,24;1,3;1,2)",
                "PGFT(3;2,2,3;1,2,2;1,2,1)",
                "PGFT(3;4,4,4;1,4,4;1,1,1)",
                "PGFT(3;2,2,24;1,2,2;1,1,1)",
                "PGFT(3;3,3,4;1,3,3;1,1,1)",
                "PGFT(3;4,2,3;1,2,2;1,1,2)"};
        for (String text : specs) {
            PgftSpec spec = PgftSpec.parse(text);
            FabricIndex index = TestFabrics.canonical(text).index();
            int top = spec.switchCount(spec.h());
            int[] expected = IntStream.range(index.switchCount() - top, index.switchCount()).toArray();
            assertThat(RootDetector.detect(index)).as(text).containsExactly(expected);
        }
    }

    @Test
    void findsTheTopLevelDespiteANodeOnATopSwitch() {
        // A management node on a top switch makes that switch a "leaf" for leaf ranking, but the
        // histograms still single out the whole top level.
        Fabric base = TestFabrics.canonical("PGFT(3;4,4,4;1,4,4;1,1,1)");
        long top = PgftGenerator.switchGuid(3, 0);
        List<FabricSwitch> switches = new ArrayList<>();
        for (FabricSwitch s : base.switches()) {
            switches.add(s.guid() == top ? new FabricSwitch(top, s.name(), s.ports() + 1) : s);
        }
        List<EndNode> nodes = new ArrayList<>(base.nodes());
        nodes.add(new EndNode(0x3000000000000000L, "mgmt", 64));
        List<Link> links = new ArrayList<>(base.links());
        links.add(new Link(top, 5, 0x3000000000000000L, 1));
        FabricIndex index = new Fabric(null, switches, nodes, links).index();

        int[] roots = RootDetector.detect(index);
        assertThat(IntStream.of(roots).mapToLong(r -> index.switchGuid(r) >>> 32).toArray()).hasSize(16)
                .containsOnly(0x10000003L);

        try (UpDownEngine engine = new UpDownEngine(1, UpDownEngine.Ranking.DETECTED_ROOTS)) {
            RoutingResult result = engine.route(index);
            assertThat(result.validity().isValid()).isTrue();
            DeadlockReport report = new DeadlockAnalyzer(RoutedFabric.of(index, result.tables())).analyze();
            assertThat(report.deadlockFree()).isTrue();
        }
    }

    @Test
    void findsTheTopLevelDespiteALostLinkPerTopSwitch() {
        // 24 leaves of 2 nodes: a top switch that lost one leaf sees 2 of 48 nodes (4%) farther away.
        Fabric base = TestFabrics.canonical("PGFT(2;2,24;1,4;1,1)");
        List<Link> lost = new ArrayList<>();
        for (int j = 0; j < 4; j++) {
            lost.add(new Link(PgftGenerator.switchGuid(1, j), 3 + j, PgftGenerator.switchGuid(2, j), 1 + j));
        }
        Fabric degraded = base.withoutLinks(lost);
        assertThat(degraded.links()).hasSize(base.links().size() - 4);
        FabricIndex index = degraded.index();
        assertThat(RootDetector.detect(index)).containsExactly(24, 25, 26, 27);
    }

    @Test
    void findsNoRootInARing() {
        // Every switch of a ring sees its own node at one hop: no dominant distance.
        List<FabricSwitch> switches = new ArrayList<>();
        List<EndNode> nodes = new ArrayList<>();
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            switches.add(new FabricSwitch(0x100 + i, "r" + i, 3));
            nodes.add(new EndNode(0x200 + i, "n" + i, i));
            links.add(new Link(0x100 + i, 1, 0x200 + i, 1));
            links.add(new Link(0x100 + i, 2, 0x100 + (i + 1) % 6, 3));
        }
        FabricIndex index = new Fabric(null, switches, nodes, links).index();
        assertThat(RootDetector.detect(index)).isEmpty();
        try (UpDownEngine engine = new UpDownEngine(1, UpDownEngine.Ranking.DETECTED_ROOTS)) {
            assertThatThrownBy(() -> engine.route(index)).isInstanceOf(RoutingException.class)
                    .hasMessageContaining("found no root switch");
        }
    }
}
