package org.fabricmanager.routing.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.routing.analysis.HandTables.L0;
import static org.fabricmanager.routing.analysis.HandTables.S0;

import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.HdftGenerator;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.LeafFailures;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

/** {@link PathLengthAnalyzer} against {@link PathTracer} over every ordered node pair. */
class PathLengthAnalyzerTest {

    @Test
    void agreesWithTracingEveryPair() {
        List<Fabric> fabrics = List.of(
                PgftGenerator.generate(PgftSpec.parse("PGFT(3;2,2,3;1,2,2;1,2,1)")),
                PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)")),
                LeafFailures.fail(HdftGenerator.generate(HdftSpec.parse("HDFT(5x4;2;1;1)")), 6, 3),
                HdftGenerator.generate(HdftSpec.parse("HDFT(3x3;2;2;1)")));
        for (Fabric fabric : fabrics) {
            for (String name : List.of("minhop", "updn", "vtftr")) {
                if (name.equals("vtftr") && fabric.hdft().isEmpty()) {
                    continue; // vtftr routes 2-D fat trees only
                }
                try (RoutingEngine engine = RoutingEngines.create(name, 1)) {
                    RoutedFabric routed = RoutedFabric.of(fabric.index(), engine.route(fabric.index()).tables());
                    PathLengths expected = traced(routed);
                    assertThat(new PathLengthAnalyzer(routed, 1).analyze()).as(fabric + " " + name).isEqualTo(expected);
                    assertThat(new PathLengthAnalyzer(routed, 3).analyze()).as(fabric + " " + name).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void dropsRoutesThatDeadEndOrLoop() {
        Fabric fabric = HandTables.fabric();
        FabricIndex index = fabric.index();
        ForwardingTables.Builder b = HandTables.balanced(index);
        b.set(S0, 2, 1); // node 2 sent back down to L0 by S0: a loop for L0's routes through S0
        RoutedFabric routed = RoutedFabric.of(index, b.build());
        PathLengths lengths = new PathLengthAnalyzer(routed, 1).analyze();
        assertThat(lengths).isEqualTo(traced(routed));
        assertThat(lengths.unroutedPairs()).isPositive();
        b = HandTables.balanced(index);
        b.set(L0, 2, ForwardingTables.NO_ROUTE);
        routed = RoutedFabric.of(index, b.build());
        PathLengths cut = new PathLengthAnalyzer(routed, 2).analyze();
        assertThat(cut).isEqualTo(traced(routed));
        assertThat(cut.unroutedPairs()).isEqualTo(2); // nodes 0 and 1 of L0 to node 2
    }

    private static PathLengths traced(RoutedFabric routed) {
        PathTracer tracer = new PathTracer(routed);
        int max = -1;
        long ok = 0;
        long failed = 0;
        long total = 0;
        for (int i = 0; i < routed.attachedCount(); i++) {
            for (int j = 0; j < routed.attachedCount(); j++) {
                if (i == j) {
                    continue;
                }
                Trace t = tracer.trace(routed.attachedDestination(i), routed.attachedDestination(j));
                if (t.delivered()) {
                    ok++;
                    total += t.hops().size() - 1;
                    max = Math.max(max, t.hops().size() - 1);
                } else {
                    failed++;
                }
            }
        }
        return new PathLengths(max, ok == 0 ? 0.0 : (double) total / ok, ok, failed);
    }
}
