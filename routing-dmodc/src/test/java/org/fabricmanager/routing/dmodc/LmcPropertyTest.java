package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.analysis.DeadlockAnalyzer;
import org.fabricmanager.routing.analysis.PathTracer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.baseline.MinHopEngine;
import org.fabricmanager.routing.baseline.SsspEngine;
import org.fabricmanager.routing.baseline.UpDownEngine;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Every LID of a port routed (OpenSM's LMC > 0): on random three-level PGFTs with random links and switches removed,
 * each end port answering to 2^lmc LIDs, each LID a destination of its own. What holds for base LIDs holds for every
 * LID: Dmodc's tables are the closed form of {@link org.fabricmanager.routing.dmodc.plain.PlainDmodc} with the path
 * bits as the destination's low bits; every engine routes every LID a base LID of the same port reaches, deadlock-free
 * where the engine is by construction; repairs keep their properties; and at every leaf the LIDs of one remote port leave through as
 * many distinct uplinks as that leaf uses towards the port's leaf, up to 2^lmc.
 */
class LmcPropertyTest {
    private static final DmodcEngine ONE = new DmodcEngine(1);
    private static final DmodcEngine TWO = new DmodcEngine(2);
    private static final int DRAWS = 24;
    /** The engines whose routes are up*&#47;down* by construction, so deadlock-free whatever the destinations. */
    private static final Set<String> UPDOWN_BY_CONSTRUCTION = Set.of(DmodcEngine.NAME, HomeDmodcEngine.NAME,
            DmodkEngine.NAME, UpDownEngine.NAME);

    @AfterAll
    static void close() {
        ONE.close();
        TWO.close();
    }

    private record Draw(String description, Fabric fabric) {
    }

    /** A random degraded PGFT whose end ports have LMC 1, 2 or 3. */
    private static Draw draw(int seed) {
        Random random = new Random(seed * 7919L);
        int m1 = 2 + random.nextInt(4);
        int m2 = 2 + random.nextInt(5);
        int m3 = 2 + random.nextInt(6);
        int w2 = 2 + random.nextInt(6);
        int w3 = 1 + random.nextInt(4);
        int p2 = random.nextInt(3) == 0 ? 2 : 1;
        int p3 = 1 + random.nextInt(2);
        String spec = "PGFT(3;" + m1 + "," + m2 + "," + m3 + ";1," + w2 + "," + w3 + ";1," + p2 + "," + p3 + ")";
        double fraction = seed % 4 == 0 ? 0 : random.nextInt(11) / 100.0;
        int switches = seed % 4 == 0 ? 0 : random.nextInt(3);
        int lmc = 1 + random.nextInt(3);
        Fabric fabric = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)),
                DegradationPlan.random(fraction, switches, seed)).withLmc(lmc);
        return new Draw(spec + " minus " + fraction + " of links and " + switches + " switches, LMC " + lmc + ", seed "
                + seed, fabric);
    }

    @Test
    void everyLidIsDmodcsClosedFormOfItsOwnDestination() {
        for (int seed = 1; seed <= DRAWS; seed++) {
            Draw draw = draw(seed);
            FabricIndex index = draw.fabric().index();
            assertThat(index.destinationCount()).as(draw.description())
                    .isEqualTo(draw.fabric().nodes().size() << draw.fabric().lmc());
            DegradedLeafRowsPropertyTest.assertSameAsReference(draw.description(), draw.fabric(), ONE, TWO);
        }
    }

    @Test
    void everyEngineRoutesEveryLidWhereItRoutesTheBaseLid() {
        List<String> engines = List.of(DmodcEngine.NAME, HomeDmodcEngine.NAME, DmodkEngine.NAME, MinHopEngine.NAME,
                UpDownEngine.NAME, SsspEngine.NAME);
        for (int seed = 1; seed <= DRAWS / 4; seed++) {
            Draw draw = draw(seed);
            FabricIndex index = draw.fabric().index();
            Fabric single = draw.fabric().withLmc(0);
            for (String name : engines) {
                if (name.equals(DmodkEngine.NAME) && !canonical(single.index())) {
                    continue; // Dmodk routes intact canonical PGFTs alone
                }
                try (RoutingEngine engine = RoutingEngines.create(name, 2)) {
                    String what = draw.description() + ", " + name;
                    RoutedFabric routed = RoutedFabric.of(index, engine.route(index).tables());
                    RoutedFabric base = RoutedFabric.of(single.index(), engine.route(single.index()).tables());
                    assertEveryLidDeliveredAsBaseLids(what, routed, base);
                    if (UPDOWN_BY_CONSTRUCTION.contains(name)) {
                        assertThat(new DeadlockAnalyzer(routed).analyze().deadlockFree()).as(what + ": deadlock-free")
                                .isTrue();
                    }
                }
            }
        }
    }

    @Test
    void theLidsOfOnePortLeaveEveryLeafThroughDistinctUplinks() {
        for (int seed = 1; seed <= DRAWS; seed++) {
            Draw draw = draw(seed);
            FabricIndex index = draw.fabric().index();
            for (String name : List.of(DmodcEngine.NAME, HomeDmodcEngine.NAME)) {
                try (RoutingEngine engine = RoutingEngines.create(name, 2)) {
                    assertDistinctUplinks(draw.description() + ", " + name, index, engine.route(index).tables());
                }
            }
        }
    }

    @Test
    void repairsOfEveryFaultKindCarryEveryLid() {
        int cases = 0;
        for (int seed = 1; seed <= DRAWS / 3; seed++) {
            Draw draw = draw(seed);
            DmodcRouting full = TWO.compute(draw.fabric().index());
            for (RepairFaults.Fault fault : RepairFaults.everyKind(draw.fabric(), 3, new Random(seed))) {
                assertThat(fault.degraded().lmc()).isEqualTo(draw.fabric().lmc());
                DmodcRepairTest.check(draw.description() + " " + fault.name(), TWO, full, fault.degraded());
                cases++;
            }
        }
        assertThat(cases).isGreaterThan(30);
    }

    /**
     * The ordered leaf pairs whose every destination is delivered (traced from the source leaf's first position) are
     * the same with every LID a destination as with one LID per port: what holds for base LIDs holds for every LID.
     */
    private static void assertEveryLidDeliveredAsBaseLids(String what, RoutedFabric routed, RoutedFabric single) {
        boolean[][] withLids = deliveredLeafPairs(routed);
        boolean[][] baseOnly = deliveredLeafPairs(single);
        int delivered = 0;
        for (int a = 0; a < withLids.length; a++) {
            for (int b = 0; b < withLids.length; b++) {
                assertThat(withLids[a][b]).as("%s: leaf pair %d -> %d delivered", what, a, b).isEqualTo(baseOnly[a][b]);
                delivered += withLids[a][b] ? 1 : 0;
            }
        }
        assertThat(delivered).as(what + ": delivered leaf pairs").isPositive();
    }

    /** Per ordered pair of leaf numbers: whether every destination of the second is delivered from the first. */
    private static boolean[][] deliveredLeafPairs(RoutedFabric routed) {
        FabricIndex index = routed.index();
        PathTracer tracer = new PathTracer(routed);
        int[] nodes = index.leafNodeArray();
        boolean[][] out = new boolean[index.leafCount()][index.leafCount()];
        for (int a = 0; a < index.leafCount(); a++) {
            int source = index.nodeIndex(nodes[index.leafNodeStart(a)]);
            for (int b = 0; b < index.leafCount(); b++) {
                boolean all = a != b;
                for (int i = index.leafNodeStart(b); all && i < index.leafNodeStart(b + 1); i++) {
                    all = tracer.delivers(source, index.nodeIndex(nodes[i]));
                }
                out[a][b] = all;
            }
        }
        return out;
    }

    /**
     * At every leaf, for every port on another leaf: its LIDs leave through {@code min(2^lmc, U)} distinct uplinks at
     * least, {@code U} being the uplinks the leaf uses towards all the LIDs of that other leaf.
     */
    private static void assertDistinctUplinks(String what, FabricIndex index, ForwardingTables tables) {
        int lids = 1 << index.lmc();
        int checked = 0;
        int[] nodes = index.leafNodeArray();
        for (int k = 0; k < index.leafCount(); k++) {
            int s = index.leaves()[k];
            for (int other = 0; other < index.leafCount(); other++) {
                if (other == k) {
                    continue;
                }
                Set<Integer> towardsLeaf = new HashSet<>();
                for (int i = index.leafNodeStart(other); i < index.leafNodeStart(other + 1); i++) {
                    int port = tables.port(s, index.nodeIndex(nodes[i]));
                    if (port != ForwardingTables.NO_ROUTE) {
                        towardsLeaf.add(port);
                    }
                }
                for (int i = index.leafNodeStart(other); i < index.leafNodeStart(other + 1); i += lids) {
                    Set<Integer> ports = new HashSet<>();
                    for (int bits = 0; bits < lids; bits++) {
                        int pos = nodes[i + bits];
                        assertThat(index.pathBits(pos)).as(what).isEqualTo(bits);
                        int port = tables.port(s, index.nodeIndex(pos));
                        if (port != ForwardingTables.NO_ROUTE) {
                            ports.add(port);
                        }
                    }
                    if (!towardsLeaf.isEmpty()) {
                        assertThat(ports.size()).as("%s: leaf %x, destination %d's %d LIDs", what,
                                index.switchGuid(s), index.nodeIndex(nodes[i]), lids)
                                .isGreaterThanOrEqualTo(Math.min(lids, towardsLeaf.size()));
                        checked++;
                    }
                }
            }
        }
        assertThat(checked).as(what + ": leaf and port pairs checked").isPositive();
    }

    /** Whether Dmodk takes the fabric: exactly the canonical fabric of its PGFT. */
    private static boolean canonical(FabricIndex index) {
        try {
            CanonicalPgftCheck.require(index);
            return true;
        } catch (org.fabricmanager.routing.RoutingException e) {
            return false;
        }
    }
}
