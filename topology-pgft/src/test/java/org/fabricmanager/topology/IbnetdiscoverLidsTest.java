package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The LIDs and port GUIDs the ibnetdiscover reader keeps, for OpenSM's LID-keyed tables. */
class IbnetdiscoverLidsTest {

    private static String sample() throws Exception {
        try (InputStream in = IbnetdiscoverLidsTest.class.getResourceAsStream("/ibnetdiscover/two-level-p2.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void keepsTheLidsOfSwitchesAndEndNodesAndThePortGuidsBehindThem() throws Exception {
        LidFabric read = IbnetdiscoverReader.parseWithLids(sample());
        LidPlan lids = read.lids();
        assertThat(lids.missing(read.fabric())).isEmpty();
        assertThat(lids.lid(0x7cfe900300bb0010L)).contains(1);
        assertThat(lids.lid(0x7cfe900300aa0020L)).contains(4);
        assertThat(lids.lid(0x98039b0300671a10L)).contains(11);
        assertThat(lids.portGuid(0x98039b0300671a10L)).isEqualTo(0x98039b0300671a11L);
        // cabled on HCA port 2: the LID and port GUID are port 2's
        assertThat(lids.lid(0x98039b0300671a50L)).contains(15);
        assertThat(lids.portGuid(0x98039b0300671a50L)).isEqualTo(0x98039b0300671a52L);
        assertThat(lids.guidOfLid(15)).contains(0x98039b0300671a50L);
        assertThat(lids.portGuid(0x7cfe900300bb0010L)).as("a switch's LID is its port 0's").isEqualTo(0x7cfe900300bb0010L);
    }

    @Test
    void keepsEachPortsLidForACaWithTwoConnectedPortsAndTakesTheSwitchSideWhenTheCaBlockIsMissing() {
        LidFabric read = IbnetdiscoverReader.parseWithLids("""
                # hand-written: a dual-ported CA, and a CA listed only from its switch
                Switch	8 "S-0000000000000a01"		# "sw" base port 0 lid 1 lmc 0
                [1]	"H-0000000000000b00"[1](b01) 		# "dual" lid 7 4xEDR
                [2]	"H-0000000000000b00"[2](b02) 		# "dual" lid 8 4xEDR
                [3]	"H-0000000000000c00"[1](c01) 		# "lonely" lid 9 4xEDR

                Ca	2 "H-0000000000000b00"		# "dual"
                [1](b01) 	"S-0000000000000a01"[1]		# lid 7 lmc 0 "sw" lid 1 4xEDR
                [2](b02) 	"S-0000000000000a01"[2]		# lid 8 lmc 0 "sw" lid 1 4xEDR

                Ca	1 "H-0000000000000c00"		# "lonely"
                """);
        LidPlan lids = read.lids();
        assertThat(lids.lid(0xb01L)).contains(7);
        assertThat(lids.lid(0xb02L)).contains(8);
        assertThat(lids.lid(0xc00L)).as("from the switch's port line").contains(9);
        assertThat(lids.portGuid(0xc00L)).isEqualTo(0xc01L);
        assertThat(lids.lid(0xa01L)).contains(1);
        assertThat(lids.missing(read.fabric())).isEmpty();
    }

    @Test
    void leavesDevicesWhoseLidIsNotPrintedWithoutOne() {
        LidFabric read = IbnetdiscoverReader.parseWithLids("""
                Switch 2 "S-0000000000000a01"
                [1] "H-0000000000000b01"[1]
                Ca 1 "H-0000000000000b01"
                [1] "S-0000000000000a01"[1]
                """);
        assertThat(read.lids().size()).isZero();
        assertThat(read.lids().missing(read.fabric())).containsExactlyInAnyOrder(0xa01L, 0xb01L);
    }

    @Test
    void refusesALidOutsideTheUnicastRangeAndKeepsNoneWhenTwoDevicesShareOne() {
        assertThatThrownBy(() -> IbnetdiscoverReader.parseWithLids("""
                Switch	2 "S-0000000000000a01"		# "sw" base port 0 lid 49152 lmc 0
                """)).isInstanceOf(TopologyException.class)
                .hasMessage("<ibnetdiscover>:1: LID 49152 is outside the unicast range 1..49151");
        // two devices with one LID: the fabric is read, the LIDs are not (only OpenSM's format needs them)
        LidFabric clash = IbnetdiscoverReader.parseWithLids("""
                Switch	2 "S-0000000000000a01"		# "sw" base port 0 lid 3 lmc 0
                [1]	"H-0000000000000b01"[1](b02) 		# "h" lid 3 4xEDR
                Ca	1 "H-0000000000000b01"		# "h"
                [1](b02) 	"S-0000000000000a01"[1]		# lid 3 lmc 0 "sw" lid 3 4xEDR
                """);
        assertThat(clash.fabric().nodes()).hasSize(1);
        assertThat(clash.lids()).isNull();
        assertThat(clash.lidProblem()).startsWith("<ibnetdiscover>: LID 3 is given to both");
    }

    /** OpenSM's {@code lmc 1}: every CA port answers to two LIDs from an even base LID, each a destination. */
    @Test
    void takesTheLmcOfTheCaPortsAndGivesEachPortItsLidsAsDestinations() {
        String text = """
                Switch	8 "S-0000000000000a01"		# "sw" base port 0 lid 1 lmc 0
                [1]	"H-0000000000000b00"[1](b01) 		# "one" lid 2 4xEDR
                [2]	"H-0000000000000c00"[1](c01) 		# "two" lid 4 4xEDR

                Ca	1 "H-0000000000000b00"		# "one"
                [1](b01) 	"S-0000000000000a01"[1]		# lid 2 lmc 1 "sw" lid 1 4xEDR

                Ca	1 "H-0000000000000c00"		# "two"
                [1](c01) 	"S-0000000000000a01"[2]		# lid 4 lmc 1 "sw" lid 1 4xEDR
                """;
        LidFabric read = IbnetdiscoverReader.parseWithLids(text);
        assertThat(read.fabric().lmc()).isEqualTo(1);
        FabricIndex index = read.fabric().index();
        assertThat(index.destinationCount()).isEqualTo(4);
        assertThat(index.nodeCount()).as("a position per LID").isEqualTo(4);
        assertThat(read.lids().lidCount(0xb00L)).isEqualTo(2);
        assertThat(read.lids().lidCount(0xa01L)).as("a switch keeps one LID").isEqualTo(1);
        assertThat(read.lids().guidOfLid(3)).contains(0xb00L);
        assertThat(read.lids().guidOfLid(5)).contains(0xc00L);
        assertThat(read.lids().maxLid()).isEqualTo(5);
        int pos = index.nodePosition(0xc00L);
        assertThat(index.pathBits(pos + 1)).isEqualTo(1);
        assertThat(index.basePosition(pos + 1)).isEqualTo(pos);
        assertThat(index.nodeLeafPort(pos + 1)).isEqualTo(2);
        assertThatThrownBy(() -> IbnetdiscoverReader.parseWithLids(text.replace("lid 4 lmc 1", "lid 4 lmc 2")))
                .isInstanceOf(TopologyException.class).hasMessageContaining("LMC [1, 2]");
    }
}
