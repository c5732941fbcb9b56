package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.PgftRecognition.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The ibnetdiscover reader on a hand-written sample, on round trips, on the format's variants and on errors. */
class IbnetdiscoverReaderTest {
    private static final long LEAF1 = 0x7cfe900300aa0010L;
    private static final long LEAF2 = 0x7cfe900300aa0020L;
    private static final long SPINE1 = 0x7cfe900300bb0010L;

    private static String sample() throws Exception {
        try (InputStream in = IbnetdiscoverReaderTest.class.getResourceAsStream("/ibnetdiscover/two-level-p2.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void readsTheSampleIntoTheModel() throws Exception {
        Fabric f = IbnetdiscoverReader.parse(sample());
        assertThat(f.pgft()).isEmpty();
        assertThat(f.switches()).hasSize(4).allSatisfy(s -> assertThat(s.ports()).isEqualTo(36));
        assertThat(f.switchByGuid(LEAF1)).get().extracting(FabricSwitch::name).isEqualTo("MF0;leaf-01:MSB7700/U1");
        assertThat(f.nodes()).hasSize(8);
        assertThat(f.links()).hasSize(16);
        // the host cabled on its HCA port 2 is one end node, on model port 1
        long node05 = 0x98039b0300671a50L;
        assertThat(f.nodeByGuid(node05)).get().extracting(EndNode::name).isEqualTo("node05 HCA-1");
        assertThat(cables(f)).contains(new Link(LEAF2, 1, node05, 1).normalized());
        // two parallel cables from leaf-01 to spine-01, on leaf ports 19 and 20
        assertThat(f.links().stream().filter(l -> (l.a() == LEAF1 && l.b() == SPINE1) || (l.a() == SPINE1 && l.b() == LEAF1)))
                .hasSize(2);
    }

    @Test
    void assignsIndicesInTopologicalOrder() throws Exception {
        Fabric f = IbnetdiscoverReader.parse(sample());
        for (int k = 1; k <= 8; k++) {
            long guid = 0x98039b0300671a00L + k * 0x10L;
            assertThat(f.nodeByGuid(guid).orElseThrow().index()).as("node%02d", k).isEqualTo(k - 1);
        }
    }

    @Test
    void theSampleIsAnIntactTwoLevelPgftWithParallelLinks() throws Exception {
        Fabric f = IbnetdiscoverReader.parse(sample());
        PgftRecognition r = PgftRecognizer.recognize(f);
        assertThat(r.verdict()).isEqualTo(Verdict.INTACT);
        assertThat(r.spec()).hasToString("PGFT(2;4,2;1,2;1,2)");
        assertThat(r.matching()).isEqualTo(PgftRecognition.Matching.BY_STRUCTURE);
        // a cable pulled shows as a missing link between the two switches, ports unknown
        String pulled = sample().replace("[20]\t\"S-7cfe900300bb0010\"[2]", "# pulled")
                .replace("[2]\t\"S-7cfe900300aa0010\"[20]", "# pulled");
        PgftRecognition degraded = PgftRecognizer.recognize(IbnetdiscoverReader.parse(pulled), r.spec());
        assertThat(degraded.verdict()).isEqualTo(Verdict.DEGRADED);
        assertThat(degraded.missingLinks()).containsExactly(new PgftRecognition.MissingLink(LEAF1, 0, SPINE1, 0));
    }

    @Test
    void generatedFabricsSurviveARoundTripThroughTheTextFormat() {
        for (PgftSpec spec : TestFabrics.fixedSpecs()) {
            Fabric fabric = PgftGenerator.generate(spec);
            Fabric back = IbnetdiscoverReader.parse(IbnetdiscoverText.write(fabric));
            assertThat(back).as(spec.toString()).isEqualTo(fabric.withPgft(null));
            assertThat(PgftRecognizer.recognize(back).spec()).isEqualTo(spec);
        }
        Fabric degraded = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse("PGFT(3;2,2,3;1,2,2;1,2,1)")),
                DegradationPlan.random(0.2, 1, 3));
        Fabric back = IbnetdiscoverReader.parse(IbnetdiscoverText.write(degraded));
        assertThat(new HashSet<>(back.links())).isEqualTo(new HashSet<>(degraded.links()));
        assertThat(PgftRecognizer.recognize(back, degraded.pgft().orElseThrow()).verdict()).isEqualTo(Verdict.DEGRADED);
    }

    @Test
    void acceptsTheVariantsTheToolPrints() {
        String text = String.join("\r\n",
                "# Topology file: generated on Mon Jan  6 10:00:00 2025",
                "Chassis 1 (guid 0x8f10400411a00)",
                "",
                "# Spine Nodes",
                "vendid=0x8f1",
                "devid=0x5a05",
                "sysimgguid=0x8f10400411a00\t\t# Chassis 1 (IB1)",
                "switchguid=0x8f10400411a08(8f10400411a08)\t# ISR9288 Spine 1 Chip 1",
                "Switch\t24 \"S-0008f10400411a08\"\t\t# \"ISR9288 Voltaire sFB-12\" base port 0 lid 6 lmc 0",
                "[3][ext 12]\t\"S-0008f10400411a10\"[7][ext 2]\t\t# \"SW-6IB4 Voltaire\" lid 3 4xSDR",
                "",
                "Non-Chassis Nodes",
                "",
                "vendid=0x8f1",
                "devid=0x5a06",
                "switchguid=0x8f10400411a10(8f10400411a10)",
                "Switch\t8 \"S-0008f10400411a10\"\t\t# \"SW-6IB4 Voltaire\" base port 0 lid 3 lmc 0",
                "[7][ext 2]\t\"S-0008f10400411a08\"[3][ext 12]\t\t# \"ISR9288 Voltaire sFB-12\" lid 6 4xSDR",
                "[1]\t\"H-0002c9020020e0d4\"[1](2c9020020e0d5) \t\t# \"host-a HCA-1\" lid 4 4xSDR",
                "[2]\t\"H-0002c9020020e0d4\"[2](2c9020020e0d6) \t\t# \"host-a HCA-1\" lid 5 4xSDR",
                "[4]\t\"R-0002c9030000abcd\"[1](2c9030000abce) \t\t# \"gw-1\" lid 9 4xSDR",
                "",
                "Hostname: host-a",
                "vendid=0x2c9",
                "devid=0x6278",
                "caguid=0x2c9020020e0d4",
                "Ca\t2 \"H-0002c9020020e0d4\"\t\t# \"host-a HCA-1\" (scp)",
                "[1](2c9020020e0d5) \t\"S-0008f10400411a10\"[1]\t\t# lid 4 lmc 0 \"SW-6IB4 Voltaire\" lid 3 4xSDR",
                "[2](2c9020020e0d6) \t\"S-0008f10400411a10\"[2]\t\t# lid 5 lmc 0 \"SW-6IB4 Voltaire\" lid 3 4xSDR",
                "",
                "vendid=0x2c9",
                "devid=0x6282",
                "rtguid=0x2c9030000abcd",
                "Rt\t1 \"R-0002c9030000abcd\"\t\t# \"gw-1\"",
                "[1](2c9030000abce) \t\"S-0008f10400411a10\"[4]\t\t# lid 9 lmc 0 \"SW-6IB4 Voltaire\" lid 3 4xSDR",
                "");
        Fabric f = IbnetdiscoverReader.parse(text);
        assertThat(f.switches()).extracting(FabricSwitch::name).containsExactlyInAnyOrder("ISR9288 Voltaire sFB-12", "SW-6IB4 Voltaire");
        // a CA with two connected ports is two end nodes named by port GUID; a router is an end node
        assertThat(f.nodes()).extracting(EndNode::guid).containsExactlyInAnyOrder(0x2c9020020e0d5L, 0x2c9020020e0d6L, 0x2c9030000abcdL);
        assertThat(f.nodeByGuid(0x2c9020020e0d6L)).get().extracting(EndNode::name).isEqualTo("host-a HCA-1 port 2");
        assertThat(f.links()).hasSize(4);
        assertThat(cables(f)).contains(new Link(0x0008f10400411a08L, 3, 0x0008f10400411a10L, 7).normalized());
        assertThat(f.nodes()).extracting(EndNode::index).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void namesDevicesWithoutADescriptionByGuid() {
        Fabric f = IbnetdiscoverReader.parse("""
                Switch 2 "S-0000000000000a01"
                [1] "H-0000000000000b01"[1]
                Ca 1 "H-0000000000000b01"
                [1] "S-0000000000000a01"[1]
                """);
        assertThat(f.switches()).extracting(FabricSwitch::name).containsExactly("S-0000000000000a01");
        assertThat(f.nodes()).extracting(EndNode::name).containsExactly("H-0000000000000b01");
    }

    @ParameterizedTest(name = "{2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "`Switch 2 \"S-0000000000000a01\"\nwhatever this is\n`|2|unrecognised line 'whatever this is'",
        "`[1] \"S-0000000000000a01\"[1]\n`|1|port line outside a Switch, Ca or Rt block",
        "`Switch 2 \"S-0000000000000a01\"\n[3] \"H-0000000000000b01\"[1]\n`|2|port 3 outside 1..2 of Switch 0x0000000000000a01",
        "`Switch 2 \"S-0000000000000a01\"\n[1] \"H-0000000000000b01\"[1]\n`|2|peer H-0000000000000b01 has no block in the file",
        "`Switch 2 \"S-0000000000000a01\"\n[1] \"S-0000000000000b01\"[1]\nCa 1 \"H-0000000000000b01\"\n[1] \"S-0000000000000a01\"[1]\n`|2|is written \"S-\" but its block on line 3 is a Ca",
        "`Switch 2 \"S-0000000000000a01\"\n[1] \"H-0000000000000b01\"[1]\nCa 1 \"H-0000000000000b01\"\n[1] \"S-0000000000000a01\"[2]\n`|2|but line 4 says 0x0000000000000b01[1] - 0x0000000000000a01[2]",
        "`Switch 2 \"S-0000000000000a01\"\nSwitch 2 \"S-0000000000000a01\"\n`|2|GUID 0x0000000000000a01 already has a Switch block on line 1",
        "`Switch 2 \"S-0000000000000a01\"\n[1] \"H-0000000000000b01\"[1]\n[1] \"H-0000000000000b02\"[1]\n`|3|port 1 of 0x0000000000000a01 already listed on line 2",
        "`switchguid=0xa02(a02)\nSwitch 2 \"S-0000000000000a01\"\n`|2|does not match 'switchguid=0x0000000000000a02' on line 1",
        "`Switch 2 \"H-0000000000000a01\"\n`|1|Switch block with a \"H-\" GUID",
        "`Switch 300 \"S-0000000000000a01\"\n`|1|has 300 ports, expected 1..254",
        "`Switch 2 \"S-0000000000000a01\"\n[1] S-0000000000000b01 [1]\n`|2|malformed port line",
        "`Switch 2 \"S-0000000000000a01\"\n[1] \"S-0000000000000a01\"[9]\n`|2|peer port 9 outside 1..2",
        "`SW     3  1 0x0002c90300a1b2c3 4x EDR - SW     1 19 0x7cfe900300aa0010 ( 'a' - 'b' )\n`|1|ports report of 'ibnetdiscover -p'",
        "`Switch\t : 0x7cfe900300aa0010 ports 36 devid 0xcf08 vendid 0x2c9 \"leaf\"\n`|1|node list of 'ibnetdiscover -l/-S/-H'",
        "`Switch 2 \"S-0000000000000a01\"\n[1] \"H-0000000000000b01\"[1]\n[2] \"H-0000000000000b01\"[2]\nCa 2 \"H-0000000000000b01\"\n`|4|has 2 connected ports and port 1 has no port GUID",
    })
    void rejectsBadInputNamingTheLine(String text, int line, String message) {
        assertThatThrownBy(() -> IbnetdiscoverReader.parse(text)).isInstanceOf(TopologyException.class)
                .hasMessageStartingWith("<ibnetdiscover>:" + line + ": ")
                .hasMessageContaining(message);
    }

    @Test
    void rejectsAnEmptyFileAndNamesAMissingOne(@TempDir Path dir) throws Exception {
        Path empty = dir.resolve("empty.txt");
        Files.writeString(empty, "# nothing\n\n");
        assertThatThrownBy(() -> IbnetdiscoverReader.read(empty)).hasMessage(empty + ": no Switch, Ca or Rt block found");
        Path missing = dir.resolve("missing.txt");
        assertThatThrownBy(() -> IbnetdiscoverReader.read(missing)).hasMessage(missing + ": no such file");
    }

    @Test
    void readsAFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fabric.txt");
        Files.writeString(file, sample());
        assertThat(IbnetdiscoverReader.read(file)).isEqualTo(IbnetdiscoverReader.parse(sample()));
    }

    /** The fabric's links with their ends in a fixed order, so that a test need not know which end came first. */
    private static Set<Link> cables(Fabric f) {
        Set<Link> out = new HashSet<>();
        for (Link l : f.links()) {
            out.add(l.normalized());
        }
        return out;
    }
}
