package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.fabricmanager.topology.HdftRecognition.Cell;
import org.fabricmanager.topology.HdftRecognition.Slot;
import org.fabricmanager.topology.PgftRecognition.Kind;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.SpecSource;
import org.fabricmanager.topology.PgftRecognition.Verdict;
import org.junit.jupiter.api.Test;

/** {@link HdftLayout} and {@link HdftRecognizer} on generated, degraded, relabelled and miswired fabrics. */
class HdftRecognitionTest {

    @Test
    void layoutOfACanonicalFabricIsItsGrid() {
        for (String text : HdftGeneratorTest.SPECS) {
            HdftSpec spec = HdftSpec.parse(text);
            FabricIndex index = HdftGenerator.generate(spec).index();
            HdftLayout layout = HdftLayout.of(index);
            assertThat(layout.rows()).as(text).isEqualTo(spec.rows());
            assertThat(layout.columns()).as(text).isEqualTo(spec.columns());
            assertGridIsCanonical(spec, index, layout, Set.of());
        }
    }

    @Test
    void failedLeavesLeaveTheirCellsEmptyAndTheRestInPlace() {
        HdftSpec spec = HdftSpec.parse("HDFT(8x8;4;1;1)");
        Fabric intact = HdftGenerator.generate(spec);
        for (long seed = 1; seed <= 40; seed++) {
            List<Long> failed = LeafFailures.pick(intact, 1 + (int) (seed % 15), seed);
            Fabric fabric = intact.withoutSwitches(failed);
            HdftLayout layout = HdftLayout.of(fabric.index());
            if (layout.rows() == spec.rows() && layout.columns() == spec.columns()) {
                assertGridIsCanonical(spec, fabric.index(), layout, new HashSet<>(failed));
            }
            HdftRecognition r = HdftRecognizer.recognize(fabric);
            assertThat(r.verdict()).as("seed " + seed).isEqualTo(Verdict.DEGRADED);
            assertThat(r.matching()).isEqualTo(Matching.BY_GUID);
            List<Cell> expected = new ArrayList<>();
            Set<Integer> rows = new HashSet<>();
            Set<Integer> columns = new HashSet<>();
            for (int y = 0; y < 8; y++) {
                for (int x = 0; x < 8; x++) {
                    if (failed.contains(HdftGenerator.leafGuid(spec, x, y))) {
                        expected.add(new Cell(x, y));
                        rows.add(y);
                        columns.add(x);
                    }
                }
            }
            assertThat(r.missingLeaves()).as("seed " + seed).isEqualTo(expected);
            assertThat(r.faultRows()).containsExactlyInAnyOrderElementsOf(rows).isSorted();
            assertThat(r.faultColumns()).containsExactlyInAnyOrderElementsOf(columns).isSorted();
            assertThat(r.missingLinks()).isEmpty();
            assertThat(r.missingNodes()).isEmpty();
            assertThat(r.attachedNodes()).isEqualTo(4 * (64 - failed.size()));
        }
    }

    @Test
    void intactCanonicalFabricsAreRecognisedAndInferred() {
        for (String text : HdftGeneratorTest.SPECS) {
            HdftSpec spec = HdftSpec.parse(text);
            Fabric f = HdftGenerator.generate(spec);
            HdftRecognition r = HdftRecognizer.recognize(f);
            assertThat(r.verdict()).as(text).isEqualTo(Verdict.INTACT);
            assertThat(r.specSource()).isEqualTo(SpecSource.FABRIC);
            assertThat(HdftRecognizer.infer(f.withHdft(null))).as(text).contains(spec);
            assertThat(HdftRecognizer.recognize(f.withHdft(null)).specSource()).isEqualTo(SpecSource.INFERRED);
        }
    }

    @Test
    void missingRowAndColumnSwitchesAndLinksAreNamed() {
        HdftSpec spec = HdftSpec.parse("HDFT(4x3;2;2;2)");
        Fabric f = HdftGenerator.generate(spec);
        long link = HdftGenerator.leafGuid(spec, 3, 2);
        Fabric degraded = f.withoutSwitches(List.of(HdftGenerator.rowSwitchGuid(spec, 1, 0),
                        HdftGenerator.columnSwitchGuid(spec, 2, 1)))
                .withoutLinks(List.of(new Link(link, HdftGenerator.leafRowPort(spec, 1),
                        HdftGenerator.rowSwitchGuid(spec, 2, 1), 4)));
        HdftRecognition r = HdftRecognizer.recognize(degraded);
        assertThat(r.verdict()).isEqualTo(Verdict.DEGRADED);
        assertThat(r.missingRowSwitches()).containsExactly(new Slot(1, 0));
        assertThat(r.missingColumnSwitches()).containsExactly(new Slot(2, 1));
        assertThat(r.missingLinks()).hasSize(1);
        assertThat(r.missingLeaves()).isEmpty();
        assertThat(r.faultRows()).isEmpty();
        List<String> lines = HdftRecognitionReport.lines(r, 20);
        assertThat(lines).contains("DEGRADED: the fabric is HDFT(4x3;2;2;2) with parts missing",
                "  row 1 0x3000000200000002 rsw-1-0", "  column 2 0x3000000300000005 csw-2-1",
                "  0x300000010000000b:4 - 0x3000000200000005:4");
        // the layout still finds every row and column, the incomplete switch in its row
        HdftLayout layout = HdftLayout.of(degraded.index());
        assertGridIsCanonical(spec, degraded.index(), layout, Set.of());
        assertThat(layout.rowSwitches(1)).hasSize(1);
        assertThat(layout.rowSwitches(2)).hasSize(2);
        assertThat(layout.columnSwitches(2)).hasSize(1);
    }

    @Test
    void miswiringIsClassified() {
        HdftSpec spec = HdftSpec.parse("HDFT(3x3;1;1;1)");
        Fabric f = HdftGenerator.generate(spec);
        long a = HdftGenerator.leafGuid(spec, 0, 0);
        long b = HdftGenerator.leafGuid(spec, 1, 1);
        // leaf (0, 1) failed and leaf (0, 0)'s row cable moved to its free port on the row switch of row 1
        Fabric failed = f.withoutSwitches(List.of(HdftGenerator.leafGuid(spec, 0, 1)));
        List<Link> links = new ArrayList<>(failed.links());
        links.removeIf(l -> l.touches(a, 2));
        links.add(new Link(a, 2, HdftGenerator.rowSwitchGuid(spec, 1, 0), 1));
        HdftRecognition r = HdftRecognizer.recognize(new Fabric(null, spec, failed.switches(), f.nodes(), links));
        assertThat(r.verdict()).isEqualTo(Verdict.MISWIRED);
        assertThat(r.problems()).extracting(PgftRecognition.Problem::kind).containsExactly(Kind.WRONG_NEIGHBOUR);
        assertThat(r.problems().get(0).detail()).contains("serves another row than leaf");

        // leaves (0, 0) and (1, 1) linked to each other instead of to their row switches
        List<Link> leafLink = new ArrayList<>(f.links());
        leafLink.removeIf(l -> l.touches(a, 2) || l.touches(b, 2));
        leafLink.add(new Link(a, 2, b, 2));
        HdftRecognition leafToLeaf = HdftRecognizer.recognize(new Fabric(null, spec, f.switches(), f.nodes(), leafLink));
        assertThat(leafToLeaf.verdict()).isEqualTo(Verdict.MISWIRED);
        assertThat(leafToLeaf.problems()).extracting(PgftRecognition.Problem::kind).containsExactly(Kind.LEAF_TO_LEAF);
        assertThatThrownBy(() -> HdftLayout.of(new Fabric(null, f.switches(), f.nodes(), leafLink).index()))
                .isInstanceOf(TopologyException.class).hasMessageContaining("odd cycle");
    }

    @Test
    void relabelledFabricsArePlacedByStructure() {
        Random random = new Random(11);
        for (String text : List.of("HDFT(4x4;1;1;1)", "HDFT(5x3;2;1;3)", "HDFT(8x8;4;1;1)", "HDFT(2x7;3;2;2)")) {
            HdftSpec spec = HdftSpec.parse(text);
            Fabric canonical = HdftGenerator.generate(spec);
            Map<Long, Long> rename = new HashMap<>();
            Fabric relabelled = relabel(canonical, random, rename);
            assertThat(HdftRecognizer.canonicalGuids(relabelled)).isFalse();
            HdftRecognition r = HdftRecognizer.recognize(relabelled);
            assertThat(r.verdict()).as(text).isEqualTo(Verdict.INTACT);
            assertThat(r.matching()).isEqualTo(Matching.BY_STRUCTURE);
            assertThat(r.spec()).as(text).isIn(spec, new HdftSpec(spec.rows(), spec.columns(), spec.nodesPerLeaf(),
                    spec.columnSwitches(), spec.rowSwitches()));
            // rows of the layout are the canonical rows or the canonical columns, as sets of leaves
            HdftLayout layout = HdftLayout.of(relabelled.index());
            Set<Set<Long>> lines = new HashSet<>();
            for (int y = 0; y < layout.rows(); y++) {
                Set<Long> row = new HashSet<>();
                for (int x = 0; x < layout.columns(); x++) {
                    row.add(relabelled.index().switchGuid(layout.leafAt(x, y)));
                }
                lines.add(row);
            }
            Set<Set<Long>> rows = new HashSet<>();
            Set<Set<Long>> columns = new HashSet<>();
            for (int y = 0; y < spec.rows(); y++) {
                Set<Long> row = new HashSet<>();
                for (int x = 0; x < spec.columns(); x++) {
                    row.add(rename.get(HdftGenerator.leafGuid(spec, x, y)));
                }
                rows.add(row);
            }
            for (int x = 0; x < spec.columns(); x++) {
                Set<Long> column = new HashSet<>();
                for (int y = 0; y < spec.rows(); y++) {
                    column.add(rename.get(HdftGenerator.leafGuid(spec, x, y)));
                }
                columns.add(column);
            }
            assertThat(lines).as(text).isIn(rows, columns);

            // degraded and checked against the spec: cells of the failed leaves are missing
            List<Long> failed = LeafFailures.pick(relabelled, 3, 5);
            HdftRecognition d = HdftRecognizer.recognize(relabelled.withoutSwitches(failed), spec);
            assertThat(d.verdict()).as(text).isEqualTo(Verdict.DEGRADED);
            assertThat(d.roles().get(0).present()).isEqualTo(spec.leafCount() - 3);
        }
    }

    @Test
    void otherShapesAreNotIntactHdfts() {
        Fabric pgft = PgftGenerator.generate(PgftSpec.parse("PGFT(3;2,2,3;1,2,2;1,2,1)"));
        assertThat(HdftRecognizer.infer(pgft)).isEmpty();
        HdftRecognition r = HdftRecognizer.recognize(pgft);
        assertThat(r.verdict()).isEqualTo(Verdict.UNRECOGNISED);
        assertThat(r.problems().get(0).detail()).startsWith("not an intact HDFT: ");
        Fabric degraded = LeafFailures.fail(HdftGenerator.generate(HdftSpec.parse("HDFT(4x4;1;1;1)")), 2, 1);
        assertThat(HdftRecognizer.infer(degraded.withHdft(null))).isEmpty();
        assertThat(HdftRecognizer.recognize(pgft, HdftSpec.parse("HDFT(4x4;1;1;1)")).verdict())
                .isEqualTo(Verdict.MISWIRED);
    }

    private static void assertGridIsCanonical(HdftSpec spec, FabricIndex index, HdftLayout layout, Set<Long> failed) {
        for (int y = 0; y < spec.rows(); y++) {
            for (int x = 0; x < spec.columns(); x++) {
                long guid = HdftGenerator.leafGuid(spec, x, y);
                int s = layout.leafAt(x, y);
                if (failed.contains(guid)) {
                    assertThat(s).isEqualTo(HdftLayout.NONE);
                } else {
                    assertThat(index.switchGuid(s)).as("(%d, %d)", x, y).isEqualTo(guid);
                    assertThat(layout.leafRow(s)).isEqualTo(y);
                    assertThat(layout.leafColumn(s)).isEqualTo(x);
                    assertThat(layout.role(s)).isEqualTo(HdftLayout.Role.LEAF);
                }
            }
        }
        for (int y = 0; y < spec.rows(); y++) {
            for (int s : layout.rowSwitches(y)) {
                assertThat((index.switchGuid(s) & 0xFFFFFFFFL) / spec.rowSwitches()).isEqualTo(y);
                assertThat(layout.role(s)).isEqualTo(HdftLayout.Role.ROW);
                assertThat(layout.lineOf(s)).isEqualTo(y);
            }
        }
        for (int x = 0; x < spec.columns(); x++) {
            for (int s : layout.columnSwitches(x)) {
                assertThat((index.switchGuid(s) & 0xFFFFFFFFL) / spec.columnSwitches()).isEqualTo(x);
                assertThat(layout.role(s)).isEqualTo(HdftLayout.Role.COLUMN);
            }
        }
    }

    /** The same cables between devices with random GUIDs (switches 0x0a.., nodes 0x0b..). */
    static Fabric relabel(Fabric f, Random random, Map<Long, Long> rename) {
        List<FabricSwitch> switches = new ArrayList<>();
        for (FabricSwitch s : f.switches()) {
            long g = 0x0a00000000000000L | (random.nextLong() & 0x00FFFFFFFFFFFFFFL);
            rename.put(s.guid(), g);
            switches.add(new FabricSwitch(g, s.name(), s.ports()));
        }
        List<EndNode> nodes = new ArrayList<>();
        for (EndNode n : f.nodes()) {
            long g = 0x0b00000000000000L | (random.nextLong() & 0x00FFFFFFFFFFFFFFL);
            rename.put(n.guid(), g);
            nodes.add(new EndNode(g, n.name(), n.index()));
        }
        List<Link> links = new ArrayList<>();
        for (Link l : f.links()) {
            links.add(new Link(rename.get(l.a()), l.aPort(), rename.get(l.b()), l.bPort()));
        }
        return new Fabric(null, switches, nodes, links);
    }
}
