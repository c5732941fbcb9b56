package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HdftGeneratorTest {
    /** Shapes from one row or column to square and oblong ones (HDFT(1x1) is left out: its one row and one column switch reach the same single leaf, so structure cannot tell them apart). */
    static final List<String> SPECS = List.of("HDFT(1x3;1;1;2)", "HDFT(4x1;2;1;1)", "HDFT(3x2;2;2;1)", "HDFT(4x4;1;1;1)",
            "HDFT(5x3;2;1;3)", "HDFT(8x8;4;1;1)", "HDFT(2x7;3;2;2)");

    @Test
    void numbersGuidsPortsAndIndicesAsDocumented() {
        HdftSpec spec = HdftSpec.parse("HDFT(3x2;2;2;1)");
        Fabric f = HdftGenerator.generate(spec);
        assertThat(f.hdft()).contains(spec);
        assertThat(f.pgft()).isEmpty();
        // leaf (1, 1) is leaf number 1*3 + 1 = 4
        assertThat(f.switchByGuid(0x3000000100000004L)).contains(new FabricSwitch(0x3000000100000004L, "lsw-1-1", 5));
        // row switch j=1 of row 1: 1*2 + 1 = 3; column switch j=0 of column 2: 2*1 + 0 = 2
        assertThat(f.switchByGuid(0x3000000200000003L)).contains(new FabricSwitch(0x3000000200000003L, "rsw-1-1", 3));
        assertThat(f.switchByGuid(0x3000000300000002L)).contains(new FabricSwitch(0x3000000300000002L, "csw-2-0", 2));
        // node 7 = (y*X + x)*k + i with (x, y) = (0, 1), i = 1: on leaf 3 port 2
        assertThat(f.nodeByGuid(0x2000000000000007L)).contains(new EndNode(0x2000000000000007L, "n7", 7));
        Set<Link> links = normalized(f.links());
        assertThat(links).contains(new Link(0x3000000100000003L, 2, 0x2000000000000007L, 1).normalized());
        // leaf (1, 1): row ports 3, 4 to rsw-1-0 and rsw-1-1 on their port 1 + x = 2; column port 5 to csw-1-0 port 1 + y = 2
        assertThat(links).contains(new Link(0x3000000100000004L, 3, 0x3000000200000002L, 2).normalized(),
                new Link(0x3000000100000004L, 4, 0x3000000200000003L, 2).normalized(),
                new Link(0x3000000100000004L, 5, 0x3000000300000001L, 2).normalized());
        assertThat(f.switches()).hasSize(spec.totalSwitchCount());
        assertThat(f.links()).hasSize(spec.totalLinkCount());
    }

    @Test
    void everyGeneratedFabricHasTheShapeOfItsSpec() {
        for (String text : SPECS) {
            HdftSpec spec = HdftSpec.parse(text);
            Fabric f = HdftGenerator.generate(spec);
            FabricIndex index = f.index();
            assertThat(index.leafCount()).as(text).isEqualTo(spec.leafCount());
            assertThat(f.nodes()).as(text).hasSize(spec.nodeCount());
            for (int y = 0; y < spec.rows(); y++) {
                for (int x = 0; x < spec.columns(); x++) {
                    int leaf = index.switchId(HdftGenerator.leafGuid(spec, x, y));
                    int[] peers = index.peerSwitches(leaf);
                    int[] nodes = index.peerNodes(leaf);
                    for (int i = 0; i < spec.nodesPerLeaf(); i++) {
                        int pos = nodes[HdftGenerator.leafNodePort(i)];
                        assertThat(index.nodeIndex(pos)).as(text).isEqualTo(spec.nodeIndex(x, y, i));
                    }
                    for (int j = 0; j < spec.rowSwitches(); j++) {
                        int port = HdftGenerator.leafRowPort(spec, j);
                        assertThat(index.switchGuid(peers[port])).isEqualTo(HdftGenerator.rowSwitchGuid(spec, y, j));
                        assertThat(index.peerPorts(leaf)[port]).isEqualTo(1 + x);
                    }
                    for (int j = 0; j < spec.columnSwitches(); j++) {
                        int port = HdftGenerator.leafColumnPort(spec, j);
                        assertThat(index.switchGuid(peers[port])).isEqualTo(HdftGenerator.columnSwitchGuid(spec, x, j));
                        assertThat(index.peerPorts(leaf)[port]).isEqualTo(1 + y);
                    }
                }
            }
        }
    }

    @Test
    void jsonCarriesTheHdftFieldBothWays() {
        HdftSpec spec = HdftSpec.parse("HDFT(3x2;2;2;1)");
        Fabric f = HdftGenerator.generate(spec);
        String json = FabricJson.toJson(f);
        assertThat(json).contains("\n  \"hdft\":\"HDFT(3x2;2;2;1)\",\n").doesNotContain("pgft");
        Fabric back = FabricJson.parse(json);
        assertThat(back).isEqualTo(f);
        assertThat(back.hdft()).contains(spec);
        // the field is optional: without it the fabric is the same but for its expected shape
        Fabric bare = FabricJson.parse(json.replace("\n  \"hdft\":\"HDFT(3x2;2;2;1)\",", ""));
        assertThat(bare.hdft()).isEmpty();
        assertThat(bare).isEqualTo(f.withHdft(null));
    }

    @Test
    void jsonRejectsABadOrDoubleShape() {
        String base = "{\"format\":\"fabric-topology/1\",%s\"switches\":[],\"nodes\":[],\"links\":[]}";
        assertThatThrownBy(() -> FabricJson.parse(base.formatted("\"hdft\":\"HDFT(2x2)\",")))
                .hasMessage("<json>: \"hdft\": HDFT: malformed 'HDFT(2x2)': 1 ';'-separated parts, expected"
                        + " HDFT(XxY;k;r;c), e.g. HDFT(16x16;8;1;1)");
        assertThatThrownBy(() -> FabricJson.parse(base.formatted("\"hdft\":7,"))).hasMessage("<json>: \"hdft\" must be a string");
        assertThatThrownBy(() -> FabricJson.parse(base.formatted("\"pgft\":\"PGFT(1;2;1;1)\",\"hdft\":\"HDFT(2x2;1;1;1)\",")))
                .hasMessageContaining("\"pgft\" and \"hdft\" cannot both be given");
    }

    @Test
    void aFabricHasOneExpectedShape() {
        Fabric f = HdftGenerator.generate(HdftSpec.parse("HDFT(2x2;1;1;1)"));
        Fabric asPgft = f.withPgft(PgftSpec.parse("PGFT(1;2;1;1)"));
        assertThat(asPgft.hdft()).isEmpty();
        assertThat(asPgft.withHdft(HdftSpec.parse("HDFT(2x2;1;1;1)")).pgft()).isEmpty();
        assertThat(f.withoutSwitches(List.of(HdftGenerator.leafGuid(f.hdft().get(), 0, 0))).hdft()).isEqualTo(f.hdft());
        assertThatThrownBy(() -> new Fabric(PgftSpec.parse("PGFT(1;2;1;1)"), HdftSpec.parse("HDFT(2x2;1;1;1)"),
                f.switches(), f.nodes(), f.links())).hasMessageContaining("both");
    }

    @Test
    void leafFailuresAreDeterministicForASeedAndKeepTheNodes() {
        Fabric f = HdftGenerator.generate(HdftSpec.parse("HDFT(8x8;4;1;1)"));
        List<Long> a = LeafFailures.pick(f, 15, 3);
        assertThat(a).hasSize(15).doesNotHaveDuplicates().isEqualTo(LeafFailures.pick(f, 15, 3))
                .isNotEqualTo(LeafFailures.pick(f, 15, 4));
        assertThat(LeafFailures.pick(f, 5, 3)).isEqualTo(a.subList(0, 5));
        Fabric failed = LeafFailures.fail(f, 15, 3);
        assertThat(failed.switches()).hasSize(f.switches().size() - 15);
        assertThat(failed.nodes()).hasSize(f.nodes().size());
        assertThat(failed.index().leafCount()).isEqualTo(64 - 15);
        assertThatThrownBy(() -> LeafFailures.pick(f, 65, 1))
                .hasMessage("leaf failures: asked to fail 65 leaf switches but the fabric has only 64");
    }

    private static Set<Link> normalized(List<Link> links) {
        Set<Link> out = new HashSet<>();
        for (Link l : links) {
            out.add(l.normalized());
        }
        return out;
    }
}
