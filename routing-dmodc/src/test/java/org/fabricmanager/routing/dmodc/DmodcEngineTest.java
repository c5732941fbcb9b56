package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.dmodc.plain.PlainDmodc;
import org.fabricmanager.routing.dmodc.preprocess.CostDivider;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.Neighbours;
import org.fabricmanager.routing.dmodc.preprocess.Ranks;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Dmodc against a plain reimplementation of the spec, across thread counts, and route by route. */
class DmodcEngineTest {
    private static final DmodcEngine ONE = new DmodcEngine(1);
    private static final DmodcEngine FOUR = new DmodcEngine(4);

    @AfterAll
    static void close() {
        ONE.close();
        FOUR.close();
    }

    @Test
    void tablesAreExactlyWhatTheSpecRulesDefineOnIntactFabrics() {
        for (String spec : TestFabrics.DMODC_SPECS) {
            assertMatchesReference(spec, TestFabrics.canonical(spec));
        }
    }

    @Test
    void tablesAreExactlyWhatTheSpecRulesDefineOnDegradedFabrics() {
        for (TestFabrics.Degraded d : TestFabrics.degradations(6)) {
            assertMatchesReference(d.description(), d.fabric());
        }
    }

    @Test
    void tablesAreExactlyWhatTheSpecRulesDefineOnIrregularFabrics() {
        for (TestFabrics.Degraded d : TestFabrics.irregular(40)) {
            assertMatchesReference(d.description(), d.fabric());
            assertEveryStepIsCloser(d.description(), FOUR.compute(d.fabric().index()));
            assertThat(FOUR.route(d.fabric().index()).tables().sameAs(ONE.route(d.fabric().index()).tables()))
                    .as(d.description()).isTrue();
        }
    }

    @Test
    void tablesAreExactlyWhatTheSpecRulesDefineOnLargerFabrics() {
        for (String spec : TestFabrics.MEDIUM_SPECS) {
            assertMatchesReference(spec, TestFabrics.canonical(spec));
        }
        for (TestFabrics.Degraded d : TestFabrics.degradations(TestFabrics.MEDIUM_SPECS, 4)) {
            assertMatchesReference(d.description(), d.fabric());
        }
        for (TestFabrics.Degraded d : TestFabrics.irregular(TestFabrics.MEDIUM_SPECS, 8)) {
            assertMatchesReference(d.description(), d.fabric());
        }
    }

    @Test
    void singleLostLinksSplittingCostSegmentsAreRoutedAsTheRulesSay() {
        // A spine that loses one leaf of its pod sees that leaf at another cost in the middle of
        // its pod's run of leaves: the neighbours' runs then straddle its own.
        Fabric intact = TestFabrics.canonical("PGFT(3;4,8,16;1,4,4;1,1,1)");
        for (int spine = 0; spine < 4; spine++) {
            for (int leaf : new int[] {0, 1, 3, 7}) {
                long spineGuid = org.fabricmanager.topology.PgftGenerator.switchGuid(2, spine);
                long leafGuid = org.fabricmanager.topology.PgftGenerator.switchGuid(1, leaf);
                List<org.fabricmanager.topology.Link> gone = new java.util.ArrayList<>();
                for (org.fabricmanager.topology.Link l : intact.links()) {
                    if ((l.a() == spineGuid && l.b() == leafGuid) || (l.a() == leafGuid && l.b() == spineGuid)) {
                        gone.add(l);
                    }
                }
                assertThat(gone).hasSize(1);
                assertMatchesReference("spine " + spine + " without leaf " + leaf, intact.withoutLinks(gone));
            }
        }
    }

    @Test
    void largerFabricsAreMostlyRoutedFromRowProfiles() {
        // Guards the test above: it must exercise the profile-based paths, not only the fallback.
        for (String spec : TestFabrics.MEDIUM_SPECS) {
            FabricIndex index = TestFabrics.canonical(spec).index();
            Ranks ranks = Ranks.of(index);
            try (RoutingPool pool = new RoutingPool(1, "test")) {
                RowProfiles profiles = CostDivider.compute(index, ranks, Neighbours.of(index, ranks), pool).profiles();
                int profiled = 0;
                for (int s = 0; s < index.switchCount(); s++) {
                    profiled += profiles.segments(s) != null ? 1 : 0;
                }
                assertThat(profiled).as(spec).isGreaterThan(index.switchCount() * 3 / 4);
            }
        }
    }

    @Test
    void oneAndFourThreadsGiveIdenticalTables() {
        List<TestFabrics.Degraded> fabrics = new java.util.ArrayList<>(TestFabrics.degradations(12));
        fabrics.addAll(TestFabrics.degradations(TestFabrics.MEDIUM_SPECS, 4));
        for (TestFabrics.Degraded d : fabrics) {
            FabricIndex index = d.fabric().index();
            RoutingResult one = ONE.route(index);
            RoutingResult four = FOUR.route(index);
            assertThat(four.tables().sameAs(one.tables())).as(d.description()).isTrue();
            assertThat(four.validity()).as(d.description()).isEqualTo(one.validity());
        }
    }

    @Test
    void everyRouteStepsToANeighbourStrictlyCloserToTheDestinationLeaf() {
        for (TestFabrics.Degraded d : TestFabrics.degradations(8)) {
            DmodcRouting routing = FOUR.compute(d.fabric().index());
            assertEveryStepIsCloser(d.description(), routing);
        }
        for (String spec : TestFabrics.DMODC_SPECS) {
            assertEveryStepIsCloser(spec, FOUR.compute(TestFabrics.canonical(spec).index()));
        }
        for (TestFabrics.Degraded d : TestFabrics.degradations(TestFabrics.MEDIUM_SPECS, 2)) {
            assertEveryStepIsCloser(d.description(), FOUR.compute(d.fabric().index()));
        }
    }

    @Test
    void theTableAlwaysPicksOneOfTheAlternativePorts() {
        for (TestFabrics.Degraded d : TestFabrics.degradations(3)) {
            DmodcRouting routing = FOUR.compute(d.fabric().index());
            ForwardingTables t = routing.result().tables();
            for (int s = 0; s < t.switchCount(); s++) {
                for (int dest = 0; dest < t.destinationCount(); dest++) {
                    int port = t.port(s, dest);
                    int[] candidates = routing.candidatePorts(s, dest);
                    if (port == ForwardingTables.NO_ROUTE) {
                        assertThat(candidates).as(d + " s=" + s + " d=" + dest).isEmpty();
                    } else {
                        assertThat(candidates).as(d + " s=" + s + " d=" + dest).contains(port);
                    }
                }
            }
        }
    }

    @Test
    void reportsItsPhasesInOrder() {
        RoutingResult r = ONE.route(TestFabrics.canonical("PGFT(3;4,4,4;1,4,4;1,1,1)").index());
        assertThat(r.engine()).isEqualTo("dmodc");
        assertThat(r.timings().phases()).extracting(p -> p.name())
                .containsExactly("ranking", "groups", "cost+divider", "routes", "validity");
    }

    @Test
    void tablesAndCostsStayWithinTheirMemoryBounds() {
        for (String spec : List.of("PGFT(3;4,4,4;1,4,4;1,1,1)", "PGFT(3;6,4,4;1,3,2;1,2,1)", "PGFT(2;6,5;1,3;1,1)")) {
            Fabric fabric = TestFabrics.canonical(spec);
            FabricIndex index = fabric.index();
            DmodcRouting routing = FOUR.compute(index);
            long switches = index.switchCount();
            long nodes = index.nodeCount();
            assertThat(routing.tableBytes()).as(spec).isEqualTo(switches * index.destinationCount())
                    .isLessThanOrEqualTo((long) (switches * nodes * 1.1));
            assertThat(routing.costTableBytes()).as(spec).isEqualTo(switches * index.leafCount());
        }
    }

    private static void assertMatchesReference(String what, Fabric fabric) {
        PlainDmodc reference = new PlainDmodc(fabric);
        int[][] expected = reference.tables();
        ForwardingTables actual = ONE.route(fabric.index()).tables();
        assertThat(actual.switchCount()).as(what).isEqualTo(expected.length);
        for (int s = 0; s < expected.length; s++) {
            assertThat(actual.switchGuid(s)).as(what).isEqualTo(reference.switchGuid(s));
            for (int d = 0; d < expected[s].length; d++) {
                if (actual.port(s, d) != expected[s][d]) {
                    throw new AssertionError(what + ": switch " + Long.toHexString(reference.switchGuid(s)) + " destination " + d
                            + ": engine port " + actual.port(s, d) + ", spec rules give " + expected[s][d]);
                }
            }
        }
    }

    private static void assertEveryStepIsCloser(String what, DmodcRouting routing) {
        FabricIndex index = routing.index();
        ForwardingTables t = routing.result().tables();
        CostTable costs = routing.costs();
        for (int d = 0; d < index.destinationCount(); d++) {
            int pos = index.nodeByDestination(d);
            int leafSwitch = pos == FabricIndex.NONE ? FabricIndex.NONE : index.nodeLeaf(pos);
            for (int s = 0; s < t.switchCount(); s++) {
                int port = t.port(s, d);
                String at = what + ": switch " + s + " destination " + d;
                if (leafSwitch == FabricIndex.NONE) {
                    assertThat(port).as(at).isEqualTo(ForwardingTables.NO_ROUTE);
                    continue;
                }
                int leaf = index.leafNumber(leafSwitch);
                if (s == leafSwitch) {
                    assertThat(port).as(at).isEqualTo(index.nodeLeafPort(pos));
                } else if (!costs.isFinite(s, leaf)) {
                    assertThat(port).as(at).isEqualTo(ForwardingTables.NO_ROUTE);
                } else {
                    assertThat(port).as(at).isBetween(1, index.switchPorts(s));
                    int next = index.peerSwitches(s)[port];
                    assertThat(next).as(at + " port " + port + " leads to a switch").isNotEqualTo(FabricIndex.NONE);
                    assertThat(costs.cost(next, leaf)).as(at + " next hop cost").isLessThan(costs.cost(s, leaf));
                }
            }
        }
    }
}
