package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fabricmanager.testing.TestFabrics.linkAt;
import static org.fabricmanager.testing.TestFabrics.node;
import static org.fabricmanager.testing.TestFabrics.rewire;
import static org.fabricmanager.testing.TestFabrics.sw;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.PgftRecognition.Kind;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.MissingLink;
import org.fabricmanager.topology.PgftRecognition.Problem;
import org.fabricmanager.topology.PgftRecognition.SpecSource;
import org.fabricmanager.topology.PgftRecognition.SwitchSlot;
import org.fabricmanager.topology.PgftRecognition.Verdict;
import org.junit.jupiter.api.Test;

/** Recognition by canonical GUID: intact, degraded (exact lists) and each kind of miswiring. */
class PgftRecognizerTest {
    private static final PgftSpec EXAMPLE = PgftSpec.parse("PGFT(3;2,2,3;1,2,2;1,2,1)");
    private final Fabric example = PgftGenerator.generate(EXAMPLE);

    @Test
    void canonicalFabricsAreIntactByGuidAndTheirSpecIsInferred() {
        for (PgftSpec spec : TestFabrics.manySpecs()) {
            Fabric fabric = PgftGenerator.generate(spec);
            PgftRecognition r = PgftRecognizer.recognize(fabric);
            assertThat(r.verdict()).as(spec.toString()).isEqualTo(Verdict.INTACT);
            assertThat(r.matching()).isEqualTo(Matching.BY_GUID);
            assertThat(r.specSource()).isEqualTo(SpecSource.FABRIC);
            assertThat(r.spec()).isEqualTo(spec);
            assertThat(r.attachedNodes()).isEqualTo(spec.nodeCount());
            for (PgftRecognition.LevelCount c : r.levels()) {
                assertThat(c.present()).isEqualTo(c.expected()).isEqualTo(spec.switchCount(c.level()));
            }
            PgftRecognition inferred = PgftRecognizer.recognize(fabric.withPgft(null));
            assertThat(inferred.verdict()).as(spec.toString()).isEqualTo(Verdict.INTACT);
            assertThat(inferred.specSource()).isEqualTo(SpecSource.INFERRED);
            assertThat(inferred.spec()).isEqualTo(spec);
            assertThat(PgftRecognizer.infer(fabric)).contains(spec);
            assertThat(PgftRecognizer.recognize(fabric.withPgft(null), spec).specSource()).isEqualTo(SpecSource.GIVEN);
        }
    }

    @Test
    void degradedFabricsListExactlyTheRemovedSwitchesAndLinks() {
        int degraded = 0;
        for (PgftSpec spec : TestFabrics.manySpecs()) {
            Fabric fabric = PgftGenerator.generate(spec);
            for (long seed = 1; seed <= 6; seed++) {
                String what = spec + " seed " + seed;
                Fabric d = TestFabrics.seededDegradation(spec, fabric, seed, 4);
                PgftRecognition r = PgftRecognizer.recognize(d);
                Set<Long> removedSwitches = new HashSet<>();
                for (FabricSwitch s : fabric.switches()) {
                    if (!d.isSwitch(s.guid())) {
                        removedSwitches.add(s.guid());
                    }
                }
                Set<Link> removedLinks = new HashSet<>();
                Set<Link> kept = new HashSet<>();
                d.links().forEach(l -> kept.add(l.normalized()));
                for (Link l : fabric.links()) {
                    if (!kept.contains(l.normalized()) && d.isSwitch(l.a()) && (d.isSwitch(l.b()) || d.isNode(l.b()))) {
                        removedLinks.add(l.normalized());
                    }
                }
                assertThat(r.problems()).as(what).isEmpty();
                assertThat(r.verdict()).as(what).isEqualTo(d.equals(fabric) ? Verdict.INTACT : Verdict.DEGRADED);
                assertThat(r.missingSwitches()).as(what).extracting(SwitchSlot::guid)
                        .containsExactlyInAnyOrderElementsOf(removedSwitches);
                Set<Link> reported = new HashSet<>();
                for (MissingLink m : r.missingLinks()) {
                    reported.add(new Link(m.a(), m.aPort(), m.b(), m.bPort()).normalized());
                }
                assertThat(reported).as(what).isEqualTo(removedLinks);
                assertThat(r.missingLinks()).as(what).hasSize(removedLinks.size());
                if (r.verdict() == Verdict.DEGRADED) {
                    degraded++;
                }
            }
        }
        assertThat(degraded).as("degraded cases covered").isGreaterThan(200);
    }

    @Test
    void namesAMissingSwitchAndTheLinksOfItsNeighbours() {
        long s20 = sw(2, 0);
        Link cable = linkAt(example, sw(1, 1), 3);
        Fabric d = Degrader.degrade(example, new DegradationPlan(0, 0, 1, List.of(s20), List.of(cable)));
        PgftRecognition r = PgftRecognizer.recognize(d);
        assertThat(r.verdict()).isEqualTo(Verdict.DEGRADED);
        assertThat(r.missingSwitches()).containsExactly(new SwitchSlot(2, 0));
        assertThat(r.missingSwitches().get(0).name()).isEqualTo("s2-0");
        // the given cable (s1-1 port 3) went to s2-0 as well: links of a missing switch are not listed
        assertThat(r.missingLinks()).isEmpty();
        Link other = linkAt(example, sw(1, 1), 5);
        PgftRecognition r2 = PgftRecognizer.recognize(example.withoutLinks(List.of(other)));
        assertThat(r2.missingLinks()).containsExactly(new MissingLink(other.a(), other.aPort(), other.b(), other.bPort()));
        assertThat(r2.summary()).isEqualTo("DEGRADED PGFT(3;2,2,3;1,2,2;1,2,1) (fabric, by GUID): 1 missing link");
    }

    @Test
    void missingAndDetachedNodesAreListed() {
        List<EndNode> nodes = new ArrayList<>(example.nodes());
        nodes.removeIf(n -> n.guid() == node(4));
        List<Link> links = new ArrayList<>(example.links());
        links.removeIf(l -> l.b() == node(4) || l.b() == node(7));
        Fabric f = new Fabric(EXAMPLE, example.switches(), nodes, links);
        PgftRecognition r = PgftRecognizer.recognize(f);
        assertThat(r.verdict()).isEqualTo(Verdict.DEGRADED);
        assertThat(r.missingNodes()).containsExactly(new PgftRecognition.MissingNode(node(4), 4));
        assertThat(r.missingLinks()).containsExactly(new MissingLink(sw(1, 3), 2, node(7), 1));
        assertThat(r.attachedNodes()).isEqualTo(10);
    }

    @Test
    void leafToLeafAndSameLevelLinksAreMiswirings() {
        Link a = linkAt(example, sw(1, 0), 3); // s1-0:3 - s2-0:1
        Link b = linkAt(example, sw(1, 2), 3); // s1-2:3 - s2-2:1
        Fabric f = rewire(example, List.of(a, b), List.of(new Link(sw(1, 0), 3, sw(1, 2), 3), new Link(sw(2, 0), 1, sw(2, 2), 1)));
        PgftRecognition r = PgftRecognizer.recognize(f);
        assertThat(r.verdict()).isEqualTo(Verdict.MISWIRED);
        assertThat(r.problems()).extracting(Problem::kind).containsExactly(Kind.LEAF_TO_LEAF, Kind.SAME_LEVEL);
        assertThat(r.problems().get(0).devices()).containsExactly(sw(1, 0), sw(1, 2));
        assertThat(r.problems().get(0).detail()).contains("0x1000000100000000 (s1-0) port 3", "0x1000000100000002 (s1-2) port 3");
        assertThat(r.miswirings()).hasSize(2);
        assertThat(r.extras()).isEmpty();
        assertThat(r.missingLinks()).hasSize(2);
        assertThat(r.matches()).isFalse();
    }

    @Test
    void nodeOnASpineAndALinkSkippingALevelAreMiswirings() {
        Link nodeLink = linkAt(example, node(0), 1);       // s1-0:1 - n0
        Link upper = linkAt(example, sw(2, 0), 5);         // s2-0:5 - s3-0:1
        Fabric f = rewire(example, List.of(nodeLink, upper),
                List.of(new Link(sw(2, 0), 5, node(0), 1), new Link(sw(1, 0), 1, sw(3, 0), 1)));
        PgftRecognition r = PgftRecognizer.recognize(f);
        assertThat(r.verdict()).isEqualTo(Verdict.MISWIRED);
        assertThat(r.problems()).extracting(Problem::kind)
                .containsExactlyInAnyOrder(Kind.NODE_ON_NON_LEAF, Kind.LEVEL_SKIP);
        Problem onSpine = r.problems().stream().filter(p -> p.kind() == Kind.NODE_ON_NON_LEAF).findFirst().orElseThrow();
        assertThat(onSpine.detail()).contains("level-2 switch", "belongs on leaf s1-0 port 1");
        Problem skip = r.problems().stream().filter(p -> p.kind() == Kind.LEVEL_SKIP).findFirst().orElseThrow();
        assertThat(skip.detail()).contains("joins level 1 to level 3");
    }

    @Test
    void swappedPortsBetweenTheRightSwitchesAreWrongPorts() {
        Link toFirst = linkAt(example, sw(1, 0), 3);   // s1-0:3 - s2-0:1
        Link toSecond = linkAt(example, sw(1, 0), 5);  // s1-0:5 - s2-1:1
        Fabric f = rewire(example, List.of(toFirst, toSecond),
                List.of(new Link(sw(1, 0), 3, sw(2, 1), 1), new Link(sw(1, 0), 5, sw(2, 0), 1)));
        PgftRecognition r = PgftRecognizer.recognize(f);
        assertThat(r.verdict()).isEqualTo(Verdict.MISWIRED);
        assertThat(r.problems()).extracting(Problem::kind).containsOnly(Kind.WRONG_PORT).hasSize(2);
        assertThat(r.problems().get(0).detail()).contains("linked on ports");
        assertThat(r.missingLinks()).extracting(MissingLink::aPort).containsExactlyInAnyOrder(3, 5);
    }

    @Test
    void crossedCablesBetweenPodsAreWrongNeighbours() {
        Link a = linkAt(example, sw(1, 0), 3); // s1-0:3 - s2-0:1
        Link b = linkAt(example, sw(1, 2), 3); // s1-2:3 - s2-2:1
        Fabric f = rewire(example, List.of(a, b), List.of(new Link(sw(1, 0), 3, sw(2, 2), 1), new Link(sw(1, 2), 3, sw(2, 0), 1)));
        PgftRecognition r = PgftRecognizer.recognize(f);
        assertThat(r.problems()).extracting(Problem::kind).containsOnly(Kind.WRONG_NEIGHBOUR).hasSize(2);
        assertThat(r.problems().get(0).detail()).contains("is not a parent of");
    }

    @Test
    void nodesOnTheWrongLeafOrPortAreReported() {
        Link n0 = linkAt(example, node(0), 1);
        Link n1 = linkAt(example, node(1), 1);
        Link n2 = linkAt(example, node(2), 1);
        Fabric swappedLeaves = rewire(example, List.of(n0, n2),
                List.of(new Link(sw(1, 0), 1, node(2), 1), new Link(sw(1, 1), 1, node(0), 1)));
        assertThat(PgftRecognizer.recognize(swappedLeaves).problems()).extracting(Problem::kind)
                .containsOnly(Kind.MISPLACED_NODE).hasSize(2);
        Fabric swappedPorts = rewire(example, List.of(n0, n1),
                List.of(new Link(sw(1, 0), 1, node(1), 1), new Link(sw(1, 0), 2, node(0), 1)));
        PgftRecognition r = PgftRecognizer.recognize(swappedPorts);
        assertThat(r.problems()).extracting(Problem::kind).containsOnly(Kind.WRONG_PORT).hasSize(2);
        assertThat(r.problems().get(0).detail()).contains("expected leaf s1-0 port 2");
    }

    @Test
    void extraSwitchesNodesAndLinksAreExtras() {
        List<FabricSwitch> switches = new ArrayList<>(example.switches());
        switches.add(new FabricSwitch(sw(4, 0), "s4-0", 4));
        switches.add(new FabricSwitch(sw(2, 6), "s2-6", 6));
        List<EndNode> nodes = new ArrayList<>(example.nodes());
        nodes.add(new EndNode(node(12), "n12", 12));
        nodes.add(new EndNode(node(13), "n13", 13));
        List<Link> links = new ArrayList<>(example.links());
        links.add(new Link(sw(4, 0), 1, sw(2, 6), 1));
        links.add(new Link(node(12), 1, node(13), 1));
        PgftRecognition r = PgftRecognizer.recognize(new Fabric(EXAMPLE, switches, nodes, links));
        assertThat(r.verdict()).isEqualTo(Verdict.MISWIRED);
        assertThat(r.extras()).extracting(Problem::kind).containsExactlyInAnyOrder(
                Kind.EXTRA_SWITCH, Kind.EXTRA_SWITCH, Kind.EXTRA_NODE, Kind.EXTRA_NODE, Kind.EXTRA_LINK);
        assertThat(r.miswirings()).extracting(Problem::kind).containsExactly(Kind.NODE_TO_NODE);
        assertThat(r.missingSwitches()).isEmpty();
        assertThat(r.summary()).contains("5 extra items", "1 miswiring");
    }

    @Test
    void aSwitchWithTooFewPortsForItsLevelIsReported() {
        Link last = linkAt(example, sw(1, 4), 6);
        List<FabricSwitch> switches = new ArrayList<>(example.switches());
        switches.replaceAll(s -> s.guid() == sw(1, 4) ? new FabricSwitch(s.guid(), s.name(), 5) : s);
        List<Link> links = new ArrayList<>(example.links());
        links.remove(last);
        PgftRecognition r = PgftRecognizer.recognize(new Fabric(EXAMPLE, switches, example.nodes(), links));
        assertThat(r.problems()).extracting(Problem::kind).containsExactly(Kind.TOO_FEW_PORTS);
        assertThat(r.problems().get(0).detail()).contains("has 5 ports, level 1 needs 6");
        assertThat(r.missingLinks()).containsExactly(new MissingLink(last.a(), last.aPort(), last.b(), last.bPort()));
    }

    @Test
    void aFabricOfAnotherShapeDoesNotMatchTheExpectedOne() {
        PgftRecognition r = PgftRecognizer.recognize(example, PgftSpec.parse("PGFT(2;2,6;1,2;1,2)"));
        assertThat(r.verdict()).isEqualTo(Verdict.MISWIRED);
        assertThat(r.specSource()).isEqualTo(SpecSource.GIVEN);
        assertThat(r.extras()).extracting(Problem::kind).contains(Kind.EXTRA_SWITCH);
    }

    @Test
    void irregularFabricsWithoutASpecAreUnrecognised() {
        Fabric f = example.withPgft(null).withoutLinks(List.of(linkAt(example, node(3), 1)));
        PgftRecognition r = PgftRecognizer.recognize(f);
        assertThat(r.verdict()).isEqualTo(Verdict.UNRECOGNISED);
        assertThat(r.spec()).isNull();
        assertThat(r.specSource()).isEqualTo(SpecSource.NONE);
        assertThat(r.problems()).extracting(Problem::kind).containsExactly(Kind.IRREGULAR);
        assertThat(r.problems().get(0).detail()).contains("end nodes per leaf differ");
        assertThat(r.levels()).extracting(PgftRecognition.LevelCount::present).containsExactly(6, 6, 4);
        assertThat(PgftRecognizer.infer(f)).isEmpty();
        // with the spec given, the same fabric is a degraded one
        assertThat(PgftRecognizer.recognize(f, EXAMPLE).verdict()).isEqualTo(Verdict.DEGRADED);
    }

    @Test
    void refusesSpecsTooLargeToList() {
        assertThatThrownBy(() -> PgftRecognizer.recognize(example, PgftSpec.parse("PGFT(3;200,200,200;1,1,1;1,1,1)")))
                .hasMessageContaining("too large to check");
    }
}
