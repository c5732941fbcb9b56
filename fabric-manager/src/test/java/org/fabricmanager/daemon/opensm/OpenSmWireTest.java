package org.fabricmanager.daemon.opensm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OpenSmWireTest {

    /** A SUBNET payload of one 2-port switch (port 1 to a CA, port 2 unlinked) and that CA's port. */
    private static ByteBuffer oneSwitch(long switchGuid, long caPortGuid) {
        ByteBuffer b = ByteBuffer.allocate(256);
        b.putLong(7).putLong(0x5eed).putInt(1).putInt(1);
        b.putLong(switchGuid).putShort((short) 2).put((byte) 2).put("s1".getBytes(StandardCharsets.UTF_8)).put((byte) 2);
        b.putLong(0xCA).put((byte) 1);
        b.putLong(0).put((byte) 0);
        b.putLong(0xCA).putLong(caPortGuid).put((byte) 1).putShort((short) 1).put((byte) 0);
        return b.flip();
    }

    @Test
    void decodesASubnetAsThePluginEncodesIt() throws Exception {
        OpenSmWire.Subnet s = OpenSmWire.subnet(oneSwitch(0x20, 0xCB));
        assertThat(s.seq()).isEqualTo(7);
        assertThat(s.held()).isEqualTo(0x5eed);
        assertThat(s.switches()).hasSize(1);
        OpenSmWire.SwitchEntry sw = s.switches().get(0);
        assertThat(sw.guid()).isEqualTo(0x20);
        assertThat(sw.lid()).isEqualTo(2);
        assertThat(sw.name()).isEqualTo("s1");
        assertThat(sw.peerGuid()).containsExactly(0xCA, 0);
        assertThat(sw.peerPort()).containsExactly(1, 0);
        assertThat(s.endPorts()).containsExactly(new OpenSmWire.EndPort(0xCA, 0xCB, 1, 1, ""));
    }

    /** A SUBNET_LMC payload of one 3-port switch with a CA port on ports 1 and 2: LIDs 4 and 8, LMCs as given. */
    private static ByteBuffer twoPortsWithLmc(int lmc1, int lmc2) {
        ByteBuffer b = ByteBuffer.allocate(256);
        b.putLong(9).putLong(0).putInt(1).putInt(2);
        b.putLong(0x20).putShort((short) 1).put((byte) 0).put((byte) 3);
        b.putLong(0xCA).put((byte) 1).putLong(0xDA).put((byte) 1).putLong(0).put((byte) 0);
        b.putLong(0xCA).putLong(0xCB).put((byte) 1).putShort((short) 4).put((byte) lmc1).put((byte) 0);
        b.putLong(0xDA).putLong(0xDB).put((byte) 1).putShort((short) 8).put((byte) lmc2).put((byte) 0);
        return b.flip();
    }

    @Test
    void decodesEachPortsLmcFromASubnetLmcFrame() throws Exception {
        OpenSmWire.Subnet s = OpenSmWire.subnet(twoPortsWithLmc(2, 2), true);
        assertThat(s.lmc()).isEqualTo(2);
        assertThat(s.endPorts()).containsExactly(new OpenSmWire.EndPort(0xCA, 0xCB, 1, 4, "", 2),
                new OpenSmWire.EndPort(0xDA, 0xDB, 1, 8, "", 2));
        assertThat(OpenSmWire.subnet(oneSwitch(0x20, 0xCB)).lmc()).as("a SUBNET frame: one LID per port").isZero();
        ByteBuffer header = ByteBuffer.allocate(OpenSmWire.HEADER_BYTES).putInt(OpenSmWire.MAGIC)
                .put((byte) OpenSmWire.VERSION).put((byte) OpenSmWire.SUBNET_LMC).putShort((short) 0).putInt(100).flip();
        assertThat(OpenSmWire.header(header.duplicate(), 200).type()).isEqualTo(OpenSmWire.SUBNET_LMC);
        assertThatThrownBy(() -> OpenSmWire.header(header.duplicate(), 50)).as("bound as a subnet")
                .isInstanceOf(OpenSmWire.WireException.class).hasMessageContaining("opensm.maxSubnetBytes");
    }

    @Test
    void refusesAnLmcAboveSevenAndPortsOfDifferentLmcs() {
        assertThatThrownBy(() -> OpenSmWire.subnet(twoPortsWithLmc(8, 8), true))
                .isInstanceOf(OpenSmWire.WireException.class).hasMessageContaining("LMC 8");
        assertThatThrownBy(() -> OpenSmWire.subnet(twoPortsWithLmc(1, 2), true))
                .isInstanceOf(OpenSmWire.WireException.class).hasMessageContaining("LMC 1 and 2")
                .satisfies(e -> assertThat(((OpenSmWire.WireException) e).refusal()).isEqualTo(Refusal.INVALID));
    }

    @Test
    void refusesCountsTheFrameCannotHold() {
        ByteBuffer b = ByteBuffer.allocate(24).putLong(1).putLong(0).putInt(0x7fff_ffff).putInt(0).flip();
        assertThatThrownBy(() -> OpenSmWire.subnet(b)).isInstanceOf(OpenSmWire.WireException.class)
                .hasMessageContaining("cannot fit");
    }

    @Test
    void refusesACutSubnetAndTrailingBytes() {
        ByteBuffer whole = oneSwitch(0x20, 0xCB);
        ByteBuffer cut = whole.duplicate().limit(40); // inside the switch's first port
        assertThatThrownBy(() -> OpenSmWire.subnet(cut)).isInstanceOf(OpenSmWire.WireException.class)
                .hasMessageContaining("cut short");
        ByteBuffer longer = ByteBuffer.allocate(whole.limit() + 1).put(whole.duplicate()).put((byte) 0).flip();
        assertThatThrownBy(() -> OpenSmWire.subnet(longer)).isInstanceOf(OpenSmWire.WireException.class)
                .hasMessageContaining("after the subnet");
    }

    @Test
    void refusesAPortGuidThatIsASwitchsGuid() {
        assertThatThrownBy(() -> OpenSmWire.subnet(oneSwitch(0x20, 0x20))).isInstanceOf(OpenSmWire.WireException.class)
                .hasMessageContaining("twice");
    }

    @Test
    void refusesAHeaderOfAnotherProtocolOrAboveTheLimit() throws Exception {
        ByteBuffer http = ByteBuffer.wrap("GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> OpenSmWire.header(http, 1024)).hasMessageContaining("not the plug-in's protocol")
                .extracting(e -> ((OpenSmWire.WireException) e).refusal()).as("no answer it could read").isNull();
        ByteBuffer big = ByteBuffer.allocate(12).putInt(OpenSmWire.MAGIC).put((byte) OpenSmWire.VERSION).put((byte) 1)
                .putShort((short) 0).putInt(-1).flip();
        assertThatThrownBy(() -> OpenSmWire.header(big, 1024)).hasMessageContaining("above the limit of 1024")
                .extracting(e -> ((OpenSmWire.WireException) e).refusal()).isEqualTo(Refusal.TOO_LARGE);
        ByteBuffer older = ByteBuffer.allocate(12).putInt(OpenSmWire.MAGIC).put((byte) 3).put((byte) 1)
                .putShort((short) 0).putInt(0).flip();
        assertThatThrownBy(() -> OpenSmWire.header(older, 1024)).as("a plug-in of an older release: refused, not left"
                + " to read a close as the daemon's absence").hasMessageContaining("protocol version 3, expected 4")
                .extracting(e -> ((OpenSmWire.WireException) e).refusal()).isEqualTo(Refusal.INVALID);
        ByteBuffer counters = ByteBuffer.allocate(12).putInt(OpenSmWire.MAGIC).put((byte) OpenSmWire.VERSION)
                .put((byte) OpenSmWire.COUNTERS).putShort((short) 0).putInt(300_000).flip();
        assertThat(OpenSmWire.header(counters, 1024).length()).as("opensm.maxSubnetBytes bounds the subnet alone")
                .isEqualTo(300_000);
        ByteBuffer huge = ByteBuffer.allocate(12).putInt(OpenSmWire.MAGIC).put((byte) OpenSmWire.VERSION)
                .put((byte) OpenSmWire.COUNTERS).putShort((short) 0).putInt(OpenSmWire.MAX_CHANNEL_FRAME + 1).flip();
        assertThatThrownBy(() -> OpenSmWire.header(huge, 1024)).hasMessageContaining("for a frame of type 8");
    }

    @Test
    void refusedCarriesItsCodeBeforeItsReasonCutAtTheLimit() {
        ByteBuffer b = new OpenSmAnswer.Refused(9, Refusal.NOT_READY, "x".repeat(2_000)).encode();
        assertThat(b.get(5)).isEqualTo((byte) OpenSmWire.REFUSED);
        assertThat(b.getInt(8)).isEqualTo(OpenSmWire.REFUSED_HEAD + OpenSmWire.MAX_REASON_BYTES);
        assertThat(b.getLong(12)).isEqualTo(9);
        assertThat(b.getShort(20)).isEqualTo((short) 2);
        assertThat(Refusal.of(2)).isEqualTo(Refusal.NOT_READY);
        assertThat(Refusal.of(99)).isNull();
    }

    @Test
    void channelFrameIsThePluginsKeepaliveWithOpenSmsProgress() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(OpenSmWire.CHANNEL_BYTES).putLong(12).putLong(3).putInt(-1).putInt(70)
                .putInt(2).put((byte) 3).flip();
        assertThat(OpenSmWire.channel(b)).isEqualTo(new OpenSmWire.Keepalive(12, 3, -1, 70, 2, 3));
        assertThatThrownBy(() -> OpenSmWire.channel(ByteBuffer.allocate(8))).as("a keepalive of release 3")
                .hasMessageContaining("channel frame of 8 bytes");
    }

    @Test
    void countersFrameCarriesEachPortsChangesAndRefusesACountItCannotHold() throws Exception {
        ByteBuffer one = ByteBuffer.allocate(12 + OpenSmWire.COUNTER_RECORD_BYTES).putInt(1).putLong(3).putLong(0x20)
                .put((byte) 5);
        for (int f = 0; f < 8; f++) {
            one.putLong(f == 2 ? -2L : f + 1); // an unsigned count near 2^64 stays as it is
        }
        OpenSmWire.CounterChanges c = OpenSmWire.counters(one.flip());
        assertThat(c.guids()).containsExactly(0x20L);
        assertThat(c.ports()).containsExactly(5);
        assertThat(c.changes()).containsExactly(1, 2, -2, 4, 5, 6, 7, 8);
        assertThat(c.dropped()).isEqualTo(3);
        ByteBuffer lying = ByteBuffer.allocate(12 + OpenSmWire.COUNTER_RECORD_BYTES).putInt(2).putLong(0)
                .put(new byte[OpenSmWire.COUNTER_RECORD_BYTES]).flip();
        assertThatThrownBy(() -> OpenSmWire.counters(lying)).hasMessageContaining("cannot fit in the frame");
    }

    @Test
    void setFrameListsTheSwitchesThatHoldThePassAndRefusesCountsItCannotHold() throws Exception {
        ByteBuffer set = ByteBuffer.allocate(32).putLong(12).putInt(3).putInt(2).putLong(0x20).putLong(0x21).flip();
        assertThat(OpenSmWire.tablesSet(set)).isEqualTo(new OpenSmWire.TablesSet(12, 3, Set.of(0x20L, 0x21L)));
        ByteBuffer lying = ByteBuffer.allocate(24).putLong(12).putInt(3).putInt(1_000_000).putLong(0x20).flip();
        assertThatThrownBy(() -> OpenSmWire.tablesSet(lying)).hasMessageContaining("cannot fit in the frame");
        ByteBuffer twice = ByteBuffer.allocate(32).putLong(12).putInt(3).putInt(2).putLong(0x20).putLong(0x20).flip();
        assertThatThrownBy(() -> OpenSmWire.tablesSet(twice)).hasMessageContaining("set twice");
        ByteBuffer more = ByteBuffer.allocate(32).putLong(12).putInt(1).putInt(2).putLong(0x20).putLong(0x21).flip();
        assertThatThrownBy(() -> OpenSmWire.tablesSet(more)).hasMessageContaining("2 switches set of 1");
    }

    @Test
    void tablesFrameHoldsEveryRowAfterItsCounts() {
        ByteBuffer b = OpenSmWire.tables(9, 0xA1, new long[] {0x20, 0x21}, new byte[][] {{0, 1, 2}, {3, 4, 5}}, 3);
        assertThat(b.getInt(0)).isEqualTo(OpenSmWire.MAGIC);
        assertThat(b.get(5)).isEqualTo((byte) OpenSmWire.TABLES);
        assertThat(b.getInt(8)).isEqualTo(22 + 2 * (8 + 3)).isEqualTo(b.limit() - OpenSmWire.HEADER_BYTES);
        assertThat(b.getLong(12)).isEqualTo(9);
        assertThat(b.getLong(20)).isEqualTo(0xA1);
        assertThat(b.getInt(28)).isEqualTo(2);
        assertThat(b.getShort(32)).isEqualTo((short) 3);
        assertThat(b.getLong(34)).isEqualTo(0x20);
        assertThat(b.get(42 + 2)).isEqualTo((byte) 2);
        assertThat(b.getLong(45)).isEqualTo(0x21);
    }

    @Test
    void deltaFrameHoldsEachChangedSwitchWithItsEntries() {
        ByteBuffer b = OpenSmWire.delta(9, 0xA2, 0xA1, 768, 4865, List.of(
                new OpenSmWire.SwitchChanges(0x20, new int[] {5, 4864}, new byte[] {3, 7})));
        assertThat(b.get(5)).isEqualTo((byte) OpenSmWire.DELTA);
        assertThat(b.getInt(8)).isEqualTo(34 + 10 + 2 * 3).isEqualTo(b.limit() - OpenSmWire.HEADER_BYTES);
        assertThat(b.limit()).isEqualTo(OpenSmWire.deltaBytes(1, 2));
        assertThat(b.getLong(12)).isEqualTo(9);
        assertThat(b.getLong(20)).isEqualTo(0xA2);
        assertThat(b.getLong(28)).isEqualTo(0xA1);
        assertThat(b.getInt(36)).isEqualTo(768);
        assertThat(b.getShort(40) & 0xffff).isEqualTo(4865);
        assertThat(b.getInt(42)).isEqualTo(1);
        assertThat(b.getLong(46)).isEqualTo(0x20);
        assertThat(b.getShort(54)).isEqualTo((short) 2);
        assertThat(b.getShort(56)).isEqualTo((short) 5);
        assertThat(b.get(58)).isEqualTo((byte) 3);
        assertThat(b.getShort(59) & 0xffff).isEqualTo(4864);
        assertThat(b.get(61)).isEqualTo((byte) 7);
    }
}
