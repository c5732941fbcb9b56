package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.testing.TestFabrics.linkAt;
import static org.fabricmanager.testing.TestFabrics.node;
import static org.fabricmanager.testing.TestFabrics.relabel;
import static org.fabricmanager.testing.TestFabrics.rewire;
import static org.fabricmanager.testing.TestFabrics.sw;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.PgftRecognition.Kind;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.Problem;
import org.fabricmanager.topology.PgftRecognition.Verdict;
import org.junit.jupiter.api.Test;

/**
 * Recognition by structure, on canonical fabrics whose GUIDs were replaced by random vendor GUIDs
 * (what a real cluster reports), compared with the exact answer by GUID on the same fabric.
 */
class StructuralRecognitionTest {
    private static final PgftSpec EXAMPLE = PgftSpec.parse("PGFT(3;2,2,3;1,2,2;1,2,1)");
    private final Fabric example = PgftGenerator.generate(EXAMPLE);

    @Test
    void relabelledIntactFabricsAreIntactAndTheirSpecIsInferred() {
        for (PgftSpec spec : TestFabrics.manySpecs()) {
            Fabric f = relabel(PgftGenerator.generate(spec), spec.hashCode());
            PgftRecognition inferred = PgftRecognizer.recognize(f);
            assertThat(inferred.verdict()).as(spec.toString()).isEqualTo(Verdict.INTACT);
            assertThat(inferred.matching()).isEqualTo(Matching.BY_STRUCTURE);
            assertThat(inferred.spec()).isEqualTo(spec);
            PgftRecognition given = PgftRecognizer.recognize(f, spec);
            assertThat(given.verdict()).as(spec.toString()).isEqualTo(Verdict.INTACT);
            assertThat(given.missingLinks()).isEmpty();
        }
    }

    /**
     * Placement by structure agrees with the exact answer: same verdict, and the missing positions
     * are the removed switches plus the ones present but cut off from every leaf (unplaced). A
     * switch that lost links can sometimes sit in more than one position consistently; the missing
     * links it implies may then differ by one or two from the exact list.
     */
    @Test
    void relabelledDegradedFabricsAgreeWithTheExactAnswer() {
        int cases = 0;
        int exactLinks = 0;
        for (PgftSpec spec : TestFabrics.manySpecs()) {
            Fabric fabric = PgftGenerator.generate(spec);
            for (long seed = 1; seed <= 8; seed++) {
                String what = spec + " seed " + seed;
                Fabric d = TestFabrics.seededDegradation(spec, fabric, seed, 3);
                PgftRecognition exact = PgftRecognizer.recognize(d);
                PgftRecognition structural = PgftRecognizer.recognize(relabel(d, seed), spec);
                assertThat(structural.matching()).isEqualTo(Matching.BY_STRUCTURE);
                assertThat(structural.problems()).as(what).isEmpty();
                assertThat(structural.verdict()).as(what).isEqualTo(exact.verdict());
                assertThat(structural.missingSwitches().size() - structural.unplacedSwitches().size()).as(what)
                        .isEqualTo(exact.missingSwitches().size());
                assertThat(structural.missingLinks().size()).as(what)
                        .isBetween(exact.missingLinks().size() - 2 - 4 * structural.unplacedSwitches().size() * spec.m(spec.h()),
                                exact.missingLinks().size() + 2);
                if (structural.unplacedSwitches().isEmpty() && structural.missingLinks().size() == exact.missingLinks().size()) {
                    exactLinks++;
                }
                cases++;
            }
        }
        assertThat(exactLinks).as("cases with exactly the same missing links").isGreaterThan(cases * 8 / 10);
    }

    @Test
    void aLeafWhoseNodesAreAllGoneIsStillALeaf() {
        List<Link> nodeLinks = new ArrayList<>();
        for (int d = 2; d < 4; d++) {
            nodeLinks.add(linkAt(example, node(d), 1));
        }
        PgftRecognition r = PgftRecognizer.recognize(relabel(example.withoutLinks(nodeLinks), 3), EXAMPLE);
        assertThat(r.verdict()).isEqualTo(Verdict.DEGRADED);
        assertThat(r.unplacedSwitches()).isEmpty();
        assertThat(r.missingSwitches()).isEmpty();
        assertThat(r.missingLinks()).hasSize(2).allSatisfy(m -> assertThat(m.b()).isZero());
        assertThat(r.attachedNodes()).isEqualTo(10);
    }

    @Test
    void aSwitchThatLostAllItsDownLinksIsPlacedUnderItsParents() {
        List<Link> down = new ArrayList<>();
        for (Link l : example.links()) {
            if ((l.b() == sw(2, 3) || l.a() == sw(2, 3)) && (l.a() == sw(1, 2) || l.a() == sw(1, 3))) {
                down.add(l);
            }
        }
        assertThat(down).hasSize(4);
        PgftRecognition r = PgftRecognizer.recognize(relabel(example.withoutLinks(down), 4), EXAMPLE);
        assertThat(r.verdict()).isEqualTo(Verdict.DEGRADED);
        assertThat(r.unplacedSwitches()).isEmpty();
        assertThat(r.missingSwitches()).isEmpty();
        assertThat(r.missingLinks()).hasSize(4);
    }

    @Test
    void aSwitchCutOffFromEveryLeafIsUnplacedButCountsAsDegradation() {
        long top = sw(3, 1);
        List<Link> all = example.links().stream().filter(l -> l.a() == top || l.b() == top).toList();
        PgftRecognition r = PgftRecognizer.recognize(relabel(example.withoutLinks(all), 5), EXAMPLE);
        assertThat(r.verdict()).isEqualTo(Verdict.DEGRADED);
        assertThat(r.unplacedSwitches()).hasSize(1);
        assertThat(r.missingSwitches()).hasSize(1);
        assertThat(r.missingSwitches().get(0).level()).isEqualTo(3);
    }

    @Test
    void leafToLeafLinksAreFoundWithoutAndWithASpec() {
        Link a = linkAt(example, sw(1, 0), 3);
        Link b = linkAt(example, sw(1, 2), 3);
        Fabric f = relabel(rewire(example, List.of(a, b),
                List.of(new Link(sw(1, 0), 3, sw(1, 2), 3), new Link(sw(2, 0), 1, sw(2, 2), 1))), 6);
        for (PgftRecognition r : List.of(PgftRecognizer.recognize(f), PgftRecognizer.recognize(f, EXAMPLE))) {
            assertThat(r.verdict()).isEqualTo(Verdict.MISWIRED);
            assertThat(r.problems()).extracting(Problem::kind).contains(Kind.LEAF_TO_LEAF, Kind.SAME_LEVEL);
            Problem leafToLeaf = r.problems().stream().filter(p -> p.kind() == Kind.LEAF_TO_LEAF).findFirst().orElseThrow();
            assertThat(leafToLeaf.detail()).contains("(s1-0) port 3", "(s1-2) port 3");
        }
    }

    @Test
    void aNodeOnASpineIsFound() {
        // a spare port on a top switch, with a node plugged into it
        List<FabricSwitch> switches = new ArrayList<>(example.switches());
        switches.replaceAll(s -> s.guid() == sw(3, 0) ? new FabricSwitch(s.guid(), s.name(), 4) : s);
        List<EndNode> nodes = new ArrayList<>(example.nodes());
        nodes.add(new EndNode(0x0002c90311111111L, "stray", 12));
        List<Link> links = new ArrayList<>(example.links());
        links.add(new Link(sw(3, 0), 4, 0x0002c90311111111L, 1));
        Fabric f = relabel(new Fabric(null, switches, nodes, links), 7);
        PgftRecognition r = PgftRecognizer.recognize(f, EXAMPLE);
        assertThat(r.verdict()).isEqualTo(Verdict.MISWIRED);
        assertThat(r.problems()).extracting(Problem::kind).containsExactly(Kind.NODE_ON_NON_LEAF);
        assertThat(r.problems().get(0).detail()).contains("(s3-0)", "(stray)", "cannot be a leaf (4 ports");
    }

    @Test
    void crossedCablesAndExtraParallelLinksAreFound() {
        Link a = linkAt(example, sw(1, 0), 3);
        Link b = linkAt(example, sw(1, 2), 3);
        Fabric crossed = relabel(rewire(example, List.of(a, b),
                List.of(new Link(sw(1, 0), 3, sw(2, 2), 1), new Link(sw(1, 2), 3, sw(2, 0), 1))), 8);
        PgftRecognition r = PgftRecognizer.recognize(crossed, EXAMPLE);
        assertThat(r.verdict()).isEqualTo(Verdict.MISWIRED);
        assertThat(r.problems()).extracting(Problem::kind).containsAnyOf(Kind.WRONG_NEIGHBOUR, Kind.UNPLACEABLE);
        assertThat(r.problems()).allSatisfy(p -> assertThat(p.kind()).isIn(Kind.WRONG_NEIGHBOUR, Kind.UNPLACEABLE));

        // a third cable between s1-0 and s2-0, on spare ports
        List<FabricSwitch> switches = new ArrayList<>(example.switches());
        switches.replaceAll(s -> s.guid() == sw(1, 0) || s.guid() == sw(2, 0) ? new FabricSwitch(s.guid(), s.name(), 8) : s);
        List<Link> links = new ArrayList<>(example.links());
        links.add(new Link(sw(1, 0), 7, sw(2, 0), 7));
        PgftRecognition extra = PgftRecognizer.recognize(relabel(new Fabric(null, switches, example.nodes(), links), 9), EXAMPLE);
        assertThat(extra.verdict()).isEqualTo(Verdict.MISWIRED);
        assertThat(extra.problems()).extracting(Problem::kind).containsExactly(Kind.EXTRA_LINK);
        assertThat(extra.extras()).hasSize(1);
    }

    @Test
    void tooManyNodesOnALeafAndASwitchTooManyLevelsUpAreFound() {
        List<FabricSwitch> switches = new ArrayList<>(example.switches());
        switches.replaceAll(s -> s.guid() == sw(1, 0) ? new FabricSwitch(s.guid(), s.name(), 7) : s);
        List<EndNode> nodes = new ArrayList<>(example.nodes());
        nodes.add(new EndNode(0x0002c90322222222L, "extra", 12));
        List<Link> links = new ArrayList<>(example.links());
        links.add(new Link(sw(1, 0), 7, 0x0002c90322222222L, 1));
        PgftRecognition r = PgftRecognizer.recognize(relabel(new Fabric(null, switches, nodes, links), 10), EXAMPLE);
        assertThat(r.problems()).extracting(Problem::kind).containsExactly(Kind.EXTRA_NODE);
        assertThat(r.problems().get(0).detail()).contains("has 3 end nodes", "2 per leaf");

        PgftRecognition shallow = PgftRecognizer.recognize(relabel(example, 11), PgftSpec.parse("PGFT(2;2,6;1,2;1,2)"));
        assertThat(shallow.verdict()).isEqualTo(Verdict.MISWIRED);
        assertThat(shallow.problems()).extracting(Problem::kind).contains(Kind.TOO_MANY_LEVELS);
    }
}
