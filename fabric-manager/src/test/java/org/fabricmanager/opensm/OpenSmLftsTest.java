package org.fabricmanager.opensm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.LidFabric;
import org.fabricmanager.topology.LidPlan;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;
import org.junit.jupiter.api.Test;

class OpenSmLftsTest {

    private static String resource(String name) throws IOException {
        try (InputStream in = OpenSmLftsTest.class.getResourceAsStream("/opensm/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static ForwardingTables route(Fabric fabric) {
        try (RoutingEngine engine = RoutingEngines.create("dmodc", 1)) {
            return engine.route(fabric.index()).tables();
        }
    }

    private static String write(Fabric fabric, ForwardingTables tables, LidPlan lids) throws IOException {
        StringWriter out = new StringWriter();
        OpenSmTables.write(fabric, tables, lids, out);
        return out.toString();
    }

    @Test
    void writesExactlyWhatOpenSmDumpsAfterLoadingOurFile() throws IOException {
        // captured under ibsim: ibnetdiscover of PGFT(2;4,4;1,2;1,1) after OpenSM assigned LIDs, and the
        // opensm-lfts.dump OpenSM 3.3.23 wrote after `opensm -R file -U` loaded our tables
        LidFabric seen = IbnetdiscoverReader.parseWithLids(resource("pgft-2-4-4.ibnetdiscover"));
        String openSmDump = resource("pgft-2-4-4.opensm-lfts.dump");
        ForwardingTables tables = OpenSmLfts.read(new StringReader(openSmDump), "dump", seen.fabric(), seen.lids());
        assertThat(write(seen.fabric(), tables, seen.lids())).isEqualTo(openSmDump);
        assertThat(tables.sameAs(route(seen.fabric()))).as("OpenSM holds Dmodc's tables").isTrue();
    }

    @Test
    void roundTripsTheTablesOfADegradedPgftUnderTheLidPlan() throws IOException {
        Fabric fabric = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)")),
                DegradationPlan.random(0.1, 0, 3L));
        ForwardingTables tables = route(fabric);
        LidPlan lids = LidPlan.sequential(fabric);
        String text = write(fabric, tables, lids);
        ForwardingTables back = OpenSmLfts.read(new StringReader(text), "written", fabric, lids);
        FabricIndex index = fabric.index();
        for (int s = 0; s < index.switchCount(); s++) {
            for (int d = 0; d < index.destinationCount(); d++) {
                if (tables.port(s, d) != ForwardingTables.NO_ROUTE) {
                    assertThat(back.port(s, d)).as("switch %d destination %d", s, d).isEqualTo(tables.port(s, d));
                }
            }
        }
        // the plan: switches from LID 1 by GUID, then nodes by index; every switch's own LID on port 0
        assertThat(text.lines().findFirst().orElseThrow())
                .isEqualTo("Unicast lids [0-112] of switch Lid 1 guid 0x1000000100000000 ('s1-0'):");
        assertThat(text).contains("\n0x0001 000 # Switch portguid 0x1000000100000000: 's1-0'\n")
                .contains("\n0x0031 001 # Channel Adapter portguid 0x2000000000000000: 'n0'\n");
        assertThat(text.lines().filter(l -> l.endsWith("lids dumped"))).hasSize(index.switchCount());
    }

    @Test
    void fillsEntriesNoValidRouteUsesTowardsTheLeafWithoutLoops() throws IOException {
        Fabric fabric = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)")),
                DegradationPlan.random(0.05, 0, 1L));
        LidPlan lids = LidPlan.sequential(fabric);
        String text = write(fabric, route(fabric), lids);
        // every switch has an entry for every LID: management traffic reaches everything from everywhere
        assertThat(text.lines().filter(l -> l.startsWith("0x")).count())
                .isEqualTo((long) fabric.switches().size() * lids.size());
        assertThat(text.lines().filter(l -> l.endsWith("lids dumped"))).allMatch(l -> l.equals(lids.maxLid() + " lids dumped"));
    }

    @Test
    void readsIbrouteOutputAndOpenSmsUnreachableLines() throws IOException {
        LidFabric seen = IbnetdiscoverReader.parseWithLids(resource("pgft-2-4-4.ibnetdiscover"));
        String ibroute = """
                Unicast lids [0x0-0x16] of switch Lid 2 guid 0x0000000000200000 (s1-0_1000000100000000):
                  Lid  Out   Destination
                       Port     Info\s
                0x0001 001 : (Channel Adapter portguid 0x0000000000100001: 'n0_2000000000000000')
                0x0002 000 : (Switch portguid 0x0000000000200000: 's1-0_1000000100000000')
                0x0005 : UNREACHABLE
                2 valid lids dumped\s
                """;
        ForwardingTables t = OpenSmLfts.read(new StringReader(ibroute), "ibroute", seen.fabric(), seen.lids());
        FabricIndex index = seen.fabric().index();
        int s = index.switchId(0x200000L);
        int d = index.nodeIndex(index.nodePosition(0x100000L));
        assertThat(t.port(s, d)).isEqualTo(1);
    }

    @Test
    void refusesMalformedLinesUnknownSwitchesAndPortsOutsideTheSwitch() {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
        LidPlan lids = LidPlan.sequential(fabric);
        assertThatThrownBy(() -> OpenSmLfts.read(new StringReader("0x0001 001\n"), "f", fabric, lids))
                .isInstanceOf(TopologyException.class).hasMessageContaining("f:1: entry before any 'Unicast lids' header");
        assertThatThrownBy(() -> OpenSmLfts.read(new StringReader(
                "Unicast lids [0-9] of switch Lid 1 guid 0x00000000000000aa ('x'):\n"), "f", fabric, lids))
                .hasMessageContaining("f:1: switch 0x00000000000000aa is not in the fabric");
        assertThatThrownBy(() -> OpenSmLfts.read(new StringReader(
                "Unicast lids [0-9] of switch Lid 1 guid 0x1000000100000000 ('s'):\n0x0005 009 # x\n"), "f", fabric, lids))
                .hasMessageContaining("f:2: port 9 outside 0..4");
        assertThatThrownBy(() -> OpenSmLfts.read(new StringReader(
                "Unicast lids [0-9] of switch Lid 1 guid 0x1000000100000000 ('s'):\nhello\n"), "f", fabric, lids))
                .hasMessageContaining("f:2: unrecognised line 'hello'");
    }

    @Test
    void refusesAFabricWithMoreSwitchesAndNodesThanUnicastLids() {
        Fabric big = PgftGenerator.generate(PgftSpec.parse("PGFT(3;32,32,64;1,32,32;1,1,1)"));
        assertThatThrownBy(() -> LidPlan.sequential(big)).isInstanceOf(TopologyException.class)
                .hasMessage("the fabric needs 70,656 LIDs (5,120 switches + 65,536 nodes) but InfiniBand has 49,151"
                        + " unicast LIDs: OpenSM cannot address it (our own southbound has no such limit)");
    }

    @Test
    void ibsimNetStartsWithAnEndNodeAndListsEveryCableAtBothEnds() throws IOException {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
        StringWriter out = new StringWriter();
        IbsimNet.write(fabric, out);
        String text = out.toString();
        assertThat(text.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).findFirst().orElseThrow())
                .isEqualTo("Hca\t1 \"n0_2000000000000000\"");
        assertThat(text).contains("Switch\t4 \"s1-0_1000000100000000\"\n[1]\t\"n0_2000000000000000\"[1]\n"
                + "[2]\t\"n1_2000000000000001\"[1]\n[3]\t\"s2-0_1000000200000000\"[1]\n[4]\t\"s2-1_1000000200000001\"[1]\n");
        assertThat(text.lines().filter(l -> l.startsWith("["))).hasSize(2 * fabric.links().size());
    }

    /**
     * With LMC 2 every end port answers to four LIDs from a base LID that is a multiple of four, as OpenSM assigns them:
     * the file has an entry for each LID of each port on every switch, each its own destination's, and reads back
     * as the tables.
     */
    @Test
    void writesAndReadsEveryLidOfEveryPortUnderAnLmc() throws IOException {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)")).withLmc(2);
        FabricIndex index = fabric.index();
        Map<Long, Integer> lidByGuid = new HashMap<>();
        int next = 1;
        for (int s = 0; s < index.switchCount(); s++) {
            lidByGuid.put(index.switchGuid(s), next++);
        }
        next = (next + 3) / 4 * 4;
        List<Long> ports = new ArrayList<>();
        for (EndNode n : fabric.nodes()) {
            lidByGuid.put(n.guid(), next);
            ports.add(n.guid());
            next += 4;
        }
        LidPlan lids = new LidPlan(lidByGuid, Map.of()).withLmc(2, ports);
        ForwardingTables tables = route(fabric);
        assertThat(tables.destinationCount()).isEqualTo(4 * fabric.nodes().size());
        String text = write(fabric, tables, lids);
        long nodeEntries = text.lines().filter(l -> l.contains("# Channel Adapter")).count();
        assertThat(nodeEntries).as("every LID of every port on every switch")
                .isEqualTo((long) index.switchCount() * 4 * fabric.nodes().size());
        int base = lids.lid(fabric.nodes().get(0).guid()).orElseThrow();
        assertThat(text).contains(String.format("\n0x%04x ", base + 3))
                .doesNotContain(String.format("0x%04x ", next));
        ForwardingTables back = OpenSmLfts.read(new StringReader(text), "written", fabric, lids);
        assertThat(back.sameAs(tables)).as("read back, every LID").isTrue();
        assertThat(lids.guidOfLid(base + 3)).contains(fabric.nodes().get(0).guid());
    }

    @Test
    void refusesAPlanWhoseBaseLidsDoNotLeaveRoomForThePathBits() {
        assertThatThrownBy(() -> new LidPlan(Map.of(1L, 6), Map.of()).withLmc(2,
                List.of(1L))).isInstanceOf(TopologyException.class).hasMessageContaining("not a multiple of 4");
        assertThatThrownBy(() -> new LidPlan(Map.of(1L, 4, 2L, 6), Map.of()).withLmc(2,
                List.of(1L))).isInstanceOf(TopologyException.class).hasMessageContaining("LID 6 is given to both");
    }
}
