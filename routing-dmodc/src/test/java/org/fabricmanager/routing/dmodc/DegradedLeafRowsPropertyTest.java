package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.dmodc.plain.PlainDmodc;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Random three-level PGFTs with random links and switches removed, routed by the engine and by
 * {@link PlainDmodc}: the tables must be equal entry by entry, and equal on one and two threads.
 * Most draws give leaves one port per uplink ({@code p_2 = 1}), the case whose rows are written as
 * rotations of the pod's surviving uplinks ({@link org.fabricmanager.routing.dmodc.fill.RotationRuns}); the leaves' sequences are shared
 * from leaf to leaf while they number their uplinks alike, so some draws also renumber the uplink
 * ports of random leaves (cables swapped between ports), which must make the leaves stop sharing.
 */
class DegradedLeafRowsPropertyTest {
    private static final DmodcEngine ONE = new DmodcEngine(1);
    private static final DmodcEngine TWO = new DmodcEngine(2);
    private static final int DRAWS = 60;

    @AfterAll
    static void close() {
        ONE.close();
        TWO.close();
    }

    @Test
    void degradedLeafRowsAreExactlyWhatTheRulesGive() {
        for (int seed = 1; seed <= DRAWS; seed++) {
            Draw draw = draw(seed, false);
            assertSameAsReference(draw);
        }
    }

    @Test
    void leavesNumberingTheirUplinksDifferentlyStillGetTheRulesPorts() {
        for (int seed = 1; seed <= DRAWS / 2; seed++) {
            Draw draw = draw(seed, true);
            assertSameAsReference(draw);
        }
    }

    @Test
    void leavesWhoseNodesAreNumberedApartStillGetTheRulesPorts() {
        for (int seed = 1; seed <= DRAWS / 2; seed++) {
            Draw draw = draw(seed, seed % 2 == 0);
            Random random = new Random(-seed);
            assertSameAsReference(new Draw(draw.description() + ", node indices scattered",
                    scatterNodeIndices(draw.fabric(), random)));
        }
    }

    /**
     * Leaves of 32 nodes and dividers of 32 (a level-2 switch under 32 parents' worth of leaf
     * uplinks, or a top switch with {@code w_2 w_3 = 32}): the sizes whose runs and steps are written
     * by the straight 32-entry paths of {@link org.fabricmanager.routing.dmodc.fill.RotationRuns} and {@link org.fabricmanager.routing.dmodc.fill.Selectors}; some draws with
     * parallel links (sequences longer than the candidates) or scattered node indices (partial steps).
     */
    @Test
    void leavesOfThirtyTwoNodesAndDividersOfThirtyTwoGetTheRulesPorts() {
        for (int seed = 1; seed <= 16; seed++) {
            Random random = new Random(1000 + seed);
            int m2 = 2 + random.nextInt(3);
            int m3 = 2 + random.nextInt(3);
            int w2;
            int w3;
            if (seed % 2 == 0) {
                w2 = 32;
                w3 = 1 + random.nextInt(2);
            } else {
                w2 = random.nextBoolean() ? 4 : 8;
                w3 = 32 / w2;
            }
            int p2 = random.nextInt(4) == 0 ? 2 : 1;
            int p3 = random.nextInt(4) == 0 ? 2 : 1;
            String spec = "PGFT(3;32," + m2 + "," + m3 + ";1," + w2 + "," + w3 + ";1," + p2 + "," + p3 + ")";
            double fraction = random.nextInt(13) / 100.0;
            int switches = random.nextInt(3);
            Fabric fabric = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)),
                    DegradationPlan.random(fraction, switches, seed));
            String description = spec + " minus " + fraction + " of links and " + switches + " switches, seed " + seed;
            if (seed % 4 == 1) {
                fabric = scatterNodeIndices(fabric, random);
                description += ", node indices scattered";
            }
            assertSameAsReference(new Draw(description, fabric));
        }
    }

    private record Draw(String description, Fabric fabric) {
    }

    /** A random PGFT, degraded, and with the uplink ports of some leaves shuffled when {@code rewire}. */
    private static Draw draw(int seed, boolean rewire) {
        Random random = new Random(seed);
        int m1 = 2 + random.nextInt(5);
        int m2 = 2 + random.nextInt(7);
        int m3 = 3 + random.nextInt(10);
        int w2 = 2 + random.nextInt(7);
        int w3 = 1 + random.nextInt(4);
        int p2 = random.nextInt(3) == 0 ? 2 : 1;
        int p3 = 1 + random.nextInt(2);
        String spec = "PGFT(3;" + m1 + "," + m2 + "," + m3 + ";1," + w2 + "," + w3 + ";1," + p2 + "," + p3 + ")";
        double fraction = random.nextInt(13) / 100.0;
        int switches = random.nextInt(3);
        Fabric fabric = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)),
                DegradationPlan.random(fraction, switches, seed));
        String description = spec + " minus " + fraction + " of links and " + switches + " switches, seed " + seed;
        if (rewire) {
            fabric = shuffleLeafUplinks(fabric, random);
            description += ", leaf uplinks renumbered";
        }
        return new Draw(description, fabric);
    }

    /** For about a third of the leaves, the switch-side ports of their uplinks permuted among themselves. */
    private static Fabric shuffleLeafUplinks(Fabric fabric, Random random) {
        List<Link> links = new ArrayList<>(fabric.links());
        List<Long> leaves = new ArrayList<>();
        for (Link l : links) {
            if (fabric.isNode(l.a()) && !leaves.contains(l.b())) {
                leaves.add(l.b());
            } else if (fabric.isNode(l.b()) && !leaves.contains(l.a())) {
                leaves.add(l.a());
            }
        }
        for (long leaf : leaves) {
            if (random.nextInt(3) != 0) {
                continue;
            }
            List<Integer> at = new ArrayList<>();
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < links.size(); i++) {
                Link l = links.get(i);
                if (fabric.isSwitch(l.a()) && fabric.isSwitch(l.b()) && (l.a() == leaf || l.b() == leaf)) {
                    at.add(i);
                    ports.add(l.a() == leaf ? l.aPort() : l.bPort());
                }
            }
            Collections.shuffle(ports, random);
            for (int j = 0; j < at.size(); j++) {
                Link l = links.get(at.get(j));
                links.set(at.get(j), l.a() == leaf ? new Link(l.a(), ports.get(j), l.b(), l.bPort())
                        : new Link(l.a(), l.aPort(), l.b(), ports.get(j)));
            }
        }
        return new Fabric(null, fabric.switches(), fabric.nodes(), links);
    }

    /**
     * Node indices with gaps, and about one node in four swapped with a random other one, so that
     * some leaves' destinations are not one range and some ranges run into the next leaf's.
     */
    private static Fabric scatterNodeIndices(Fabric fabric, Random random) {
        List<EndNode> nodes = new ArrayList<>(fabric.nodes());
        int[] index = new int[nodes.size()];
        for (int i = 0; i < index.length; i++) {
            index[i] = nodes.get(i).index() + nodes.get(i).index() / 7;
        }
        for (int i = 0; i < index.length; i++) {
            if (random.nextInt(4) == 0) {
                int j = random.nextInt(index.length);
                int t = index[i];
                index[i] = index[j];
                index[j] = t;
            }
        }
        for (int i = 0; i < index.length; i++) {
            EndNode n = nodes.get(i);
            nodes.set(i, new EndNode(n.guid(), n.name(), index[i]));
        }
        return new Fabric(null, fabric.switches(), nodes, fabric.links());
    }

    private static void assertSameAsReference(Draw draw) {
        assertSameAsReference(draw.description(), draw.fabric(), ONE, TWO);
    }

    /**
     * {@code fabric} routed by {@code one} and {@code two} (one and two threads) gives the same tables, entry for entry
     * those of {@link PlainDmodc}; {@code description} names the draw in a failure.
     */
    static void assertSameAsReference(String description, Fabric fabric, DmodcEngine oneThread, DmodcEngine twoThreads) {
        PlainDmodc reference = new PlainDmodc(fabric);
        int[][] expected = reference.tables();
        ForwardingTables one = oneThread.route(fabric.index()).tables();
        ForwardingTables two = twoThreads.route(fabric.index()).tables();
        assertThat(two.sameAs(one)).as(description + ": one and two threads").isTrue();
        assertThat(one.switchCount()).as(description).isEqualTo(expected.length);
        for (int s = 0; s < expected.length; s++) {
            for (int d = 0; d < expected[s].length; d++) {
                if (one.port(s, d) != expected[s][d]) {
                    throw new AssertionError(description + ": switch " + Long.toHexString(reference.switchGuid(s))
                            + " destination " + d + ": engine port " + one.port(s, d) + ", spec rules give "
                            + expected[s][d]);
                }
            }
        }
    }
}
