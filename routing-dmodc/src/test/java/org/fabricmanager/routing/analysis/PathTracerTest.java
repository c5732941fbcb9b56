package org.fabricmanager.routing.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fabricmanager.routing.analysis.HandTables.L0;
import static org.fabricmanager.routing.analysis.HandTables.L1;
import static org.fabricmanager.routing.analysis.HandTables.S0;

import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Link;
import org.junit.jupiter.api.Test;

class PathTracerTest {
    private final Fabric fabric = HandTables.fabric();
    private final FabricIndex index = fabric.index();

    private Trace trace(ForwardingTables.Builder b, int src, int dst) {
        return new PathTracer(RoutedFabric.of(index, b.build())).trace(src, dst);
    }

    private List<Trace.Hop> hops(int... switchAndPort) {
        Trace.Hop[] hops = new Trace.Hop[switchAndPort.length / 2];
        for (int i = 0; i < hops.length; i++) {
            int s = switchAndPort[2 * i];
            hops[i] = new Trace.Hop(s, index.switchGuid(s), switchAndPort[2 * i + 1]);
        }
        return List.of(hops);
    }

    @Test
    void followsTheTablesToTheDestination() {
        Trace t = trace(HandTables.balanced(index), 0, 2);
        assertThat(t.outcome()).isEqualTo(Trace.Outcome.DELIVERED);
        assertThat(t.hops()).isEqualTo(hops(L0, 3, S0, 2, L1, 1));
        assertThat(t.loopStart()).isEqualTo(-1);
    }

    @Test
    void deliversBetweenNodesOfOneLeafInOneHop() {
        Trace t = trace(HandTables.balanced(index), 1, 0);
        assertThat(t.delivered()).isTrue();
        assertThat(t.hops()).isEqualTo(hops(L0, 1));
    }

    @Test
    void detectsALoopAndWhereItCloses() {
        ForwardingTables.Builder b = HandTables.balanced(index);
        b.set(S0, 2, 1); // S0 sends node 2 back down to L0, which sends it up to S0 again
        Trace t = trace(b, 0, 2);
        assertThat(t.outcome()).isEqualTo(Trace.Outcome.LOOP);
        assertThat(t.hops()).isEqualTo(hops(L0, 3, S0, 1));
        assertThat(t.loopStart()).isZero();
    }

    @Test
    void detectsALoopThatDoesNotIncludeTheSource() {
        ForwardingTables.Builder b = HandTables.balanced(index);
        b.set(S0, 2, 2); // S0 -> L1 ...
        b.set(L1, 2, 3); // ... L1 -> S0: loop between S0 and L1, entered from L0
        Trace t = trace(b, 0, 2);
        assertThat(t.outcome()).isEqualTo(Trace.Outcome.LOOP);
        assertThat(t.hops()).isEqualTo(hops(L0, 3, S0, 2, L1, 3));
        assertThat(t.loopStart()).isEqualTo(1);
    }

    @Test
    void reportsNoRouteWhereTheEntryIs255() {
        ForwardingTables.Builder b = HandTables.balanced(index);
        b.set(S0, 2, ForwardingTables.NO_ROUTE);
        Trace t = trace(b, 0, 2);
        assertThat(t.outcome()).isEqualTo(Trace.Outcome.NO_ROUTE);
        assertThat(t.outcome().isDeadEnd()).isTrue();
        assertThat(t.hops()).isEqualTo(hops(L0, 3, S0, 255));
    }

    @Test
    void reportsAPortWithoutCableOrBeyondTheSwitch() {
        ForwardingTables.Builder b = HandTables.balanced(index);
        b.set(S0, 2, 7); // spines have 2 ports
        Trace t = trace(b, 0, 2);
        assertThat(t.outcome()).isEqualTo(Trace.Outcome.UNCONNECTED_PORT);
        assertThat(t.hops()).isEqualTo(hops(L0, 3, S0, 7));

        // the same tables on the fabric without the S0-L1 cable: port 2 of S0 leads nowhere
        Fabric cut = fabric.withoutLinks(List.of(new Link(index.switchGuid(S0), 2, index.switchGuid(L1), 3)));
        Trace t2 = new PathTracer(RoutedFabric.of(cut.index(), HandTables.balanced(cut.index()).build())).trace(0, 2);
        assertThat(t2.outcome()).isEqualTo(Trace.Outcome.UNCONNECTED_PORT);
        assertThat(t2.hops()).isEqualTo(hops(L0, 3, S0, 2));
    }

    @Test
    void reportsDeliveryToAnotherNode() {
        ForwardingTables.Builder b = HandTables.balanced(index);
        b.set(L1, 2, 2); // port 2 of L1 is node 3
        Trace t = trace(b, 0, 2);
        assertThat(t.outcome()).isEqualTo(Trace.Outcome.WRONG_NODE);
        assertThat(t.hops()).isEqualTo(hops(L0, 3, S0, 2, L1, 2));
    }

    @Test
    void reportsADetachedSource() {
        Fabric detached = fabric.withoutLinks(List.of(new Link(index.switchGuid(L0), 1, fabric.nodes().stream()
                .filter(n -> n.index() == 0).findFirst().orElseThrow().guid(), 1)));
        Trace t = new PathTracer(RoutedFabric.of(detached.index(), HandTables.balanced(detached.index()).build()))
                .trace(0, 2);
        assertThat(t.outcome()).isEqualTo(Trace.Outcome.SOURCE_DETACHED);
        assertThat(t.hops()).isEmpty();
    }

    @Test
    void rejectsUnknownIndicesAndTheSameNode() {
        PathTracer tracer = new PathTracer(RoutedFabric.of(index, HandTables.balanced(index).build()));
        assertThatThrownBy(() -> tracer.trace(0, 9)).hasMessageContaining("no node has index 9");
        assertThatThrownBy(() -> tracer.trace(-1, 2)).hasMessageContaining("no node has index -1");
        assertThatThrownBy(() -> tracer.trace(3, 3)).hasMessageContaining("same node");
    }

    @Test
    void rejectsTablesOfAnotherFabric() {
        Fabric other = TestFabrics.canonical("PGFT(2;2,3;1,2;1,1)");
        ForwardingTables tables = HandTables.balanced(index).build();
        assertThatThrownBy(() -> RoutedFabric.of(other.index(), tables))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not for this fabric");
        Fabric fewer = fabric.withoutSwitches(List.of(index.switchGuid(S0)));
        assertThatThrownBy(() -> RoutedFabric.of(fewer.index(), tables))
                .hasMessageContaining("they have 4 switches, the fabric has 3");
    }

    @Test
    void deliversAnswersAsTheTraceOnDamagedTablesOfDegradedFabrics() {
        java.util.EnumMap<Trace.Outcome, Integer> seen = new java.util.EnumMap<>(Trace.Outcome.class);
        try (org.fabricmanager.routing.dmodc.DmodcEngine engine = new org.fabricmanager.routing.dmodc.DmodcEngine(1)) {
            for (int seed = 1; seed <= 27; seed++) {
                String spec = TestFabrics.ROUTING_SPECS.get(seed % TestFabrics.ROUTING_SPECS.size());
                Fabric f = TestFabrics.degraded(spec, seed);
                FabricIndex fi = f.index();
                ForwardingTables routed = engine.route(fi).tables();
                // damage some entries: other ports (some without a cable or beyond the switch, some that loop) and 255
                java.util.Random r = new java.util.Random(seed);
                long[] guids = new long[routed.switchCount()];
                for (int s = 0; s < guids.length; s++) {
                    guids[s] = routed.switchGuid(s);
                }
                ForwardingTables.Builder b = ForwardingTables.builder(guids, routed.destinationCount());
                for (int s = 0; s < guids.length; s++) {
                    for (int d = 0; d < routed.destinationCount(); d++) {
                        int port = routed.port(s, d);
                        if (r.nextInt(8) == 0) {
                            port = r.nextInt(10) == 0 ? ForwardingTables.NO_ROUTE : 1 + r.nextInt(12);
                        }
                        b.set(s, d, port);
                    }
                }
                PathTracer tracer = new PathTracer(RoutedFabric.of(fi, b.build()));
                for (int src = 0; src < fi.destinationCount(); src++) {
                    for (int dst = 0; dst < fi.destinationCount(); dst++) {
                        if (src == dst || fi.nodeByDestination(src) == FabricIndex.NONE
                                || fi.nodeByDestination(dst) == FabricIndex.NONE) {
                            continue;
                        }
                        Trace t = tracer.trace(src, dst);
                        seen.merge(t.outcome(), 1, Integer::sum);
                        assertThat(tracer.delivers(src, dst)).as("%s seed %d: %d to %d (%s)", spec, seed, src, dst,
                                t.outcome()).isEqualTo(t.delivered());
                    }
                }
            }
        }
        // the damage reached every way a route can end, so each branch of delivers was compared
        assertThat(seen.keySet()).contains(Trace.Outcome.DELIVERED, Trace.Outcome.NO_ROUTE, Trace.Outcome.LOOP,
                Trace.Outcome.UNCONNECTED_PORT, Trace.Outcome.WRONG_NODE);
    }
}
