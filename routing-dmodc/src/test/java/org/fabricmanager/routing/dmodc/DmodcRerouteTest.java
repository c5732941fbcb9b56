package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Incremental re-routing gives exactly the tables of a routing from scratch: sequences of random
 * faults and recoveries (links, non-leaf and leaf switches, node links, departing nodes) on
 * generated PGFTs, each step re-routed from the previous step's re-route, so that any difference
 * would also carry over.
 */
class DmodcRerouteTest {
    private static final DmodcEngine ONE = new DmodcEngine(1);
    private static final DmodcEngine THREE = new DmodcEngine(3);

    @AfterAll
    static void close() {
        ONE.close();
        THREE.close();
    }

    @Test
    void rerouteEqualsRoutingFromScratchAfterEveryFaultAndRecovery() {
        long cases = 0;
        for (String spec : TestFabrics.DMODC_SPECS) {
            if (PgftSpec.parse(spec).h() < 2) {
                continue;
            }
            for (long seed = 1; seed <= 4; seed++) {
                cases += walk(spec, seed, 8);
            }
        }
        assertThat(cases).isGreaterThan(300);
    }

    @Test
    void rerouteEqualsRoutingFromScratchOnLargerFabrics() {
        long cases = 0;
        for (String spec : TestFabrics.MEDIUM_SPECS) {
            cases += walk(spec, 11, 6);
        }
        assertThat(cases).isGreaterThan(30);
    }

    @Test
    void anUnchangedFabricReusesEveryRow() {
        Fabric fabric = TestFabrics.canonical("PGFT(3;4,4,4;1,4,4;1,1,1)");
        DmodcRouting first = ONE.compute(fabric.index());
        DmodcRouting again = ONE.reroute(fabric.index(), first);
        ForwardingTables a = first.result().tables();
        ForwardingTables b = again.result().tables();
        assertThat(again.rowCounts()).contains(new DmodcRouting.RowCounts(a.switchCount(), 0, 0));
        for (int s = 0; s < a.switchCount(); s++) {
            assertThat(b.sharesRow(s, a, s)).as("row %d", s).isTrue();
        }
        assertThat(again.result().timings().phases()).extracting(p -> p.name())
                .containsExactly("ranking", "groups", "cost+divider", "changes", "routes", "validity");
    }

    @Test
    void oneLostSpineLinkRecomputesFewRowsAndSharesTheOthers() {
        Fabric fabric = TestFabrics.canonical("PGFT(3;4,8,16;1,4,4;1,1,1)");
        DmodcRouting before = ONE.compute(fabric.index());
        Link spineLink = null;
        for (Link l : fabric.links()) {
            if (isSpine(l.a()) || isSpine(l.b())) {
                spineLink = l;
                break;
            }
        }
        Fabric next = fabric.withoutLinks(List.of(spineLink));
        DmodcRouting after = ONE.reroute(next.index(), before);
        assertThat(after.result().tables().sameAs(ONE.route(next.index()).tables())).isTrue();
        DmodcRouting.RowCounts counts = after.rowCounts().orElseThrow();
        int switches = next.index().switchCount();
        assertThat(counts.reused()).as(counts.toString()).isGreaterThan(switches / 2);
        assertThat(counts.patched() + counts.recomputed()).as(counts.toString()).isPositive();
        int shared = 0;
        for (int s = 0; s < switches; s++) {
            shared += after.result().tables().sharesRow(s, before.result().tables(), s) ? 1 : 0;
        }
        assertThat(shared).isEqualTo(counts.reused());
    }

    @Test
    void aSnapshotOfAnotherEngineIsReroutedFromScratch() {
        Fabric fabric = TestFabrics.canonical("PGFT(3;4,4,4;1,4,4;1,1,1)");
        FabricIndex index = fabric.index();
        RoutedSnapshot plain = RoutedSnapshot.of(index, ONE.route(index));
        DmodcRouting again = ONE.reroute(index, plain);
        assertThat(again.rowCounts()).isEmpty();
        assertThat(again.result().tables().sameAs(plain.result().tables())).isTrue();
    }

    /**
     * From {@code spec} (degraded first for even seeds), {@code steps} random events, each
     * re-routed from the previous re-route and compared with a routing from scratch. Returns the
     * number of comparisons.
     */
    private static int walk(String spec, long seed, int steps) {
        Random random = new Random(seed * 7919 + spec.hashCode());
        Fabric full = TestFabrics.canonical(spec);
        if (seed % 2 == 0) {
            full = Degrader.degrade(full, DegradationPlan.random(0.1, 0, seed));
        }
        Faults faults = new Faults(full);
        Fabric current = faults.apply();
        DmodcEngine engine = seed % 2 == 0 ? ONE : THREE;
        RoutedSnapshot previous = engine.routeSnapshot(current.index());
        List<String> history = new ArrayList<>();
        int compared = 0;
        for (int step = 0; step < steps; step++) {
            history.add(faults.randomEvent(current, random));
            current = faults.apply();
            FabricIndex index = current.index();
            if (index.leafCount() == 0) {
                break;
            }
            String what = spec + " seed " + seed + " after " + history;
            DmodcRouting scratch = ONE.compute(index);
            DmodcRouting rerouted = engine.reroute(index, previous);
            assertSame(what, scratch.result(), rerouted.result());
            assertSamePreprocessing(what, scratch, rerouted);
            previous = rerouted;
            compared++;
        }
        return compared;
    }

    private static void assertSame(String what, RoutingResult expected, RoutingResult actual) {
        ForwardingTables e = expected.tables();
        ForwardingTables a = actual.tables();
        assertThat(a.switchCount()).as(what).isEqualTo(e.switchCount());
        assertThat(a.destinationCount()).as(what).isEqualTo(e.destinationCount());
        for (int s = 0; s < e.switchCount(); s++) {
            assertThat(a.switchGuid(s)).as(what).isEqualTo(e.switchGuid(s));
            if (!a.rowEquals(s, e, s)) {
                for (int d = 0; d < e.destinationCount(); d++) {
                    if (a.port(s, d) != e.port(s, d)) {
                        throw new AssertionError(what + ": switch " + Guids.format(e.switchGuid(s)) + " destination " + d
                                + ": re-route gives port " + a.port(s, d) + ", routing from scratch " + e.port(s, d));
                    }
                }
            }
        }
        assertThat(actual.validity()).as(what).isEqualTo(expected.validity());
    }

    /** Costs, dividers and row profiles, which the next re-route builds on. */
    private static void assertSamePreprocessing(String what, DmodcRouting expected, DmodcRouting actual) {
        FabricIndex index = expected.index();
        for (int s = 0; s < index.switchCount(); s++) {
            assertThat(actual.divider(s)).as("%s: divider of switch %d", what, s).isEqualTo(expected.divider(s));
            assertThat(actual.profiles().mode(s)).as("%s: mode of switch %d", what, s)
                    .isEqualTo(expected.profiles().mode(s));
            assertThat(actual.profiles().segments(s)).as("%s: segments of switch %d", what, s)
                    .isEqualTo(expected.profiles().segments(s));
            for (int l = 0; l < index.leafCount(); l++) {
                if (actual.costs().cost(s, l) != expected.costs().cost(s, l)) {
                    throw new AssertionError(what + ": switch " + s + " leaf " + l + ": re-route cost "
                            + actual.costs().cost(s, l) + ", from scratch " + expected.costs().cost(s, l));
                }
            }
        }
    }

    private static boolean isSpine(long guid) {
        return guid >>> 32 == PgftGenerator.switchGuid(3, 0) >>> 32;
    }

    /** The faults applied to a fabric: links and switches down, nodes gone. */
    private static final class Faults {
        private final Fabric full;
        private final Set<Link> linksDown = new HashSet<>();
        private final Set<Long> switchesDown = new HashSet<>();
        private final Set<Long> nodesGone = new HashSet<>();

        Faults(Fabric full) {
            this.full = full;
        }

        Fabric apply() {
            List<EndNode> nodes = new ArrayList<>();
            for (EndNode n : full.nodes()) {
                if (!nodesGone.contains(n.guid())) {
                    nodes.add(n);
                }
            }
            List<Link> links = new ArrayList<>();
            for (Link l : full.links()) {
                if (!linksDown.contains(l.normalized()) && !switchesDown.contains(l.a()) && !switchesDown.contains(l.b())
                        && !nodesGone.contains(l.a()) && !nodesGone.contains(l.b())) {
                    links.add(l);
                }
            }
            List<FabricSwitch> switches = new ArrayList<>();
            for (FabricSwitch s : full.switches()) {
                if (!switchesDown.contains(s.guid())) {
                    switches.add(s);
                }
            }
            return new Fabric(full.pgft().orElse(null), switches, nodes, links);
        }

        /** Applies one random event to the fault sets and describes it. */
        String randomEvent(Fabric current, Random random) {
            int dice = random.nextInt(100);
            if (dice < 30 || (dice < 45 && linksDown.isEmpty()) || (dice >= 45 && dice < 70 && switchesDown.isEmpty())) {
                List<Link> switchLinks = new ArrayList<>();
                for (Link l : current.links()) {
                    if (current.isSwitch(l.a()) && current.isSwitch(l.b())) {
                        switchLinks.add(l);
                    }
                }
                if (!switchLinks.isEmpty()) {
                    Link l = switchLinks.get(random.nextInt(switchLinks.size()));
                    linksDown.add(l.normalized());
                    return "link " + l + " down";
                }
            }
            if (dice < 45 && !linksDown.isEmpty()) {
                Link l = new ArrayList<>(linksDown).get(random.nextInt(linksDown.size()));
                linksDown.remove(l);
                return "link " + l + " up";
            }
            if (dice < 60 && !switchesDown.isEmpty()) {
                long guid = new ArrayList<>(switchesDown).get(random.nextInt(switchesDown.size()));
                switchesDown.remove(guid);
                return "switch " + Guids.format(guid) + " up";
            }
            if (dice < 85) {
                FabricIndex index = current.index();
                int s = random.nextInt(index.switchCount());
                // Leaves go down more rarely than the switches above them, as in real fabrics.
                if (index.isLeaf(s) && random.nextInt(3) != 0) {
                    s = random.nextInt(index.switchCount());
                }
                switchesDown.add(index.switchGuid(s));
                return "switch " + Guids.format(index.switchGuid(s)) + " down";
            }
            if (dice < 95) {
                List<Link> nodeLinks = new ArrayList<>();
                for (Link l : current.links()) {
                    if (current.isNode(l.a()) || current.isNode(l.b())) {
                        nodeLinks.add(l);
                    }
                }
                if (!nodeLinks.isEmpty()) {
                    Link l = nodeLinks.get(random.nextInt(nodeLinks.size()));
                    linksDown.add(l.normalized());
                    return "node link " + l + " down";
                }
            }
            // The node with the highest index leaves the fabric: the tables get shorter.
            EndNode last = null;
            for (EndNode n : current.nodes()) {
                if (last == null || n.index() > last.index()) {
                    last = n;
                }
            }
            if (last == null || current.nodes().size() < 2) {
                return "nothing";
            }
            nodesGone.add(last.guid());
            return "node " + Guids.format(last.guid()) + " (index " + last.index() + ") gone";
        }
    }
}
