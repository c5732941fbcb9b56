package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.util.List;
import java.util.Random;
import org.fabricmanager.southbound.Message.Ack;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.DetectorConfig;
import org.fabricmanager.southbound.Message.DetectorMember;
import org.fabricmanager.southbound.Message.EchoReply;
import org.fabricmanager.southbound.Message.EchoRequest;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.HelloReply;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.Message.LftCommit;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.junit.jupiter.api.Test;

class SouthboundCodecTest {
    private static byte[] ringKey() {
        byte[] key = new byte[Message.DetectorConfig.KEY_BYTES];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (i * 37 + 5);
        }
        return key;
    }


    static List<Message> samples() throws Exception {
        byte[] entries = new byte[64];
        for (int i = 0; i < 64; i++) {
            entries[i] = (byte) (i % 3 == 0 ? 255 : 1 + i % 18);
        }
        return List.of(
                new Hello(1, 1, 3, 0x1000000100000000L, 1234567L, 18, 65536, 7, 512, 0x1234abcdL, "s1-0 é"),
                new HelloReply(1, 1, -5L, 65536, 2000),
                new PortInfo(2, List.of(PortRecord.toNode(1, 0x2000000000000000L, "n0"),
                        PortRecord.toSwitch(2, 0x1000000200000000L, 1, "s2-0"), PortRecord.down(3),
                        PortRecord.upWithoutPeer(4))),
                new PortStatus(3, List.of(PortRecord.down(9))),
                new LftBlock(4, 7, 128, entries),
                new LftBlock(5, 7, 192, new byte[] {1, 2, (byte) 255}),
                new Message.LftBlocks(15, 7, 256, java.util.Arrays.copyOf(entries, 64 * 3 + 5)),
                new LftCommit(6, 7, 195, 2, 0xfeedfaceL),
                new Ack(7, MessageType.PORT_INFO),
                new CommitAck(8, 7, 195, -1L),
                new ErrorReport(9, ErrorCode.HASH_MISMATCH.code(), MessageType.LFT_COMMIT.code(), "bad hash"),
                new EchoRequest(-1, Long.MAX_VALUE),
                new EchoReply(10, 42),
                new DetectorConfig(11, 3, 100, 500, 100, Message.Overlay.BMG, Message.Transport.UDP,
                        Message.StartMode.JOIN, 5, 2, 1, List.of(
                        new DetectorMember(0x10L, 1, InetAddress.getByName("127.0.0.1"), 9000),
                        new DetectorMember(0x11L, 2, InetAddress.getByName("::1"), 9001)), ringKey()),
                new Message.VcRuleSet(12, 7, 2, new byte[] {1, 2, 3, 3, 4, 4, 0}, new byte[] {4, 3, 1}),
                new Message.DetectorEndpoint(13, InetAddress.getByName("127.0.0.1"), 40_001),
                new Message.DetectorEndpoint(14, InetAddress.getByName("fe80::1"), 65_535));
    }

    /** Messages with an appended optional field (section 3): cut right before it they are the older form. */
    static List<Message> appendedFieldSamples() {
        return List.of(
                new Hello(1, 3, 3, 0x1000000100000000L, 1234567L, 18, 65536, 7, 512, 0x1234abcdL, "s1-0",
                        Protocol.FEATURE_VC_RULES),
                new LftCommit(6, 7, 195, 2, 0xfeedfaceL, 0x1234L),
                new CommitAck(8, 7, 195, -1L, 0x5678L));
    }

    @Test
    void appendedFieldsSurviveARoundTripAndTheirAbsenceIsTheOlderForm() {
        for (Message m : appendedFieldSamples()) {
            ByteBuf buf = Unpooled.buffer();
            SouthboundCodec.encode(m, buf);
            assertThat(buf.readInt()).isEqualTo(buf.readableBytes());
            int full = buf.readableBytes();
            assertThat(SouthboundCodec.decode(buf.slice(buf.readerIndex(), full))).as("round trip of %s", m).isEqualTo(m);
            int optional = m instanceof Hello ? 4 : 8;
            Message older = SouthboundCodec.decode(buf.slice(buf.readerIndex(), full - optional));
            Message expected;
            if (m instanceof Hello h) {
                expected = new Hello(h.txid(), h.minVersion(), h.maxVersion(), h.guid(), h.incarnation(),
                        h.portCount(), h.maxFrame(), h.tableVersion(), h.tableLength(), h.tableHash(), h.name());
            } else if (m instanceof LftCommit c) {
                expected = new LftCommit(c.txid(), c.version(), c.length(), c.blocks(), c.hash());
            } else {
                CommitAck a = (CommitAck) m;
                expected = new CommitAck(a.txid(), a.version(), a.length(), a.hash());
            }
            assertThat(older).as("%s without its appended field", m).isEqualTo(expected);
            for (int cut = 5; cut < full; cut++) {
                if (cut == full - optional) {
                    continue;
                }
                ByteBuf partial = buf.slice(buf.readerIndex(), cut);
                assertThatThrownBy(() -> SouthboundCodec.decode(partial)).as("%s cut at %d", m, cut)
                        .isInstanceOfSatisfying(ProtocolException.class,
                                e -> assertThat(e.code()).isIn(ErrorCode.MALFORMED, ErrorCode.UNSUPPORTED_VERSION));
            }
        }
        assertThat(((Hello) appendedFieldSamples().get(0)).supportsVcRules()).isTrue();
        assertThat(new Hello(1, 3, 3, 5, 0, 4, 4096, 0, 0, 0, "x").supportsVcRules()).isFalse();
    }

    @Test
    void vcRulesFieldRulesAreEnforced() {
        assertMalformed(new Message.VcRuleSet(1, 0, 2, new byte[] {1}, new byte[0]), "version 0");
        assertMalformed(new Message.VcRuleSet(1, 1, 0, new byte[] {1}, new byte[0]), "vcCount 0");
        assertMalformed(new Message.VcRuleSet(1, 1, 16, new byte[] {1}, new byte[0]), "vcCount 16");
        assertMalformed(new Message.VcRuleSet(1, 1, 2, new byte[0], new byte[0]), "port count 0");
        assertMalformed(new Message.VcRuleSet(1, 1, 2, new byte[] {5}, new byte[0]), "port 1: class 5");
        assertMalformed(new Message.VcRuleSet(1, 1, 2, new byte[] {1}, new byte[] {4, 3, 2}), "channel below 2");
        assertMalformed(new Message.VcRuleSet(1, 1, 2, new byte[] {1}, new byte[] {4, 3, 1, 4, 3, 0}), "given twice");
        // a rules hash of 0 cannot be encoded (0 leaves the field out), so write it by hand
        ByteBuf buf = Unpooled.buffer();
        SouthboundCodec.encode(new LftCommit(1, 1, 64, 1, 0, 0x99L), buf);
        buf.setLong(buf.writerIndex() - 8, 0);
        buf.skipBytes(4);
        assertThatThrownBy(() -> SouthboundCodec.decode(buf)).hasMessageContaining("rulesHash 0");
    }

    @Test
    void everyMessageSurvivesARoundTrip() throws Exception {
        for (Message m : samples()) {
            ByteBuf buf = Unpooled.buffer();
            SouthboundCodec.encode(m, buf);
            assertThat(buf.readInt()).as("length of %s", m).isEqualTo(buf.readableBytes());
            assertThat(SouthboundCodec.decode(buf)).as("round trip of %s", m).isEqualTo(m);
            assertThat(SouthboundCodec.frameBytes(m)).isEqualTo(buf.writerIndex());
        }
    }

    @Test
    void frameHeaderIsLengthTypeTxidBigEndian() {
        ByteBuf buf = Unpooled.buffer();
        SouthboundCodec.encode(new EchoRequest(0x01020304, 0x1122334455667788L), buf);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        assertThat(bytes).containsExactly(0, 0, 0, 13, 0x09, 1, 2, 3, 4,
                0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte) 0x88);
    }

    @Test
    void unknownTypeIsReportedWithItsCodeAndTxid() {
        ByteBuf frame = Unpooled.buffer().writeByte(0x7f).writeInt(99);
        assertThatThrownBy(() -> SouthboundCodec.decode(frame))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_TYPE);
                    assertThat(e.txid()).isEqualTo(99);
                    assertThat(e.refType()).isEqualTo(0x7f);
                    assertThat(e.getMessage()).contains("0x7f");
                });
    }

    @Test
    void everyTruncatedPayloadIsMalformed() throws Exception {
        for (Message m : samples()) {
            ByteBuf buf = Unpooled.buffer();
            SouthboundCodec.encode(m, buf);
            buf.skipBytes(4);
            int full = buf.readableBytes();
            for (int cut = 5; cut < full; cut++) {
                ByteBuf partial = buf.slice(buf.readerIndex(), cut);
                assertThatThrownBy(() -> SouthboundCodec.decode(partial)).as("%s cut at %d", m, cut)
                        .isInstanceOfSatisfying(ProtocolException.class,
                                e -> assertThat(e.code()).isIn(ErrorCode.MALFORMED, ErrorCode.UNSUPPORTED_VERSION));
            }
        }
    }

    /** The appended managerTerm of hot-standby managers: present only when non-zero, and whole. */
    @Test
    void managerTermIsAnOptionalAppendedField() {
        for (Message m : List.of(new HelloReply(1, 2, -5L, 65536, 2000, 7L),
                new LftCommit(6, 7, 195, 2, 0xfeedfaceL, 0x1234L, 3L))) {
            ByteBuf buf = Unpooled.buffer();
            SouthboundCodec.encode(m, buf);
            assertThat(buf.readInt()).isEqualTo(buf.readableBytes());
            int full = buf.readableBytes();
            assertThat(SouthboundCodec.decode(buf.slice(buf.readerIndex(), full))).as("round trip of %s", m).isEqualTo(m);
            Message without = SouthboundCodec.decode(buf.slice(buf.readerIndex(), full - 8));
            assertThat(without).as("%s without its term", m).isIn(new HelloReply(1, 2, -5L, 65536, 2000),
                    new LftCommit(6, 7, 195, 2, 0xfeedfaceL, 0x1234L));
            for (int cut = full - 7; cut < full; cut++) {
                ByteBuf partial = buf.slice(buf.readerIndex(), cut);
                assertThatThrownBy(() -> SouthboundCodec.decode(partial)).as("%s cut at %d", m, cut)
                        .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED));
            }
        }
        // a term without a rules hash: the rules-hash field is sent as 0 (rules kept) so that the term's place is fixed
        LftCommit termOnly = new LftCommit(6, 7, 195, 2, 0xfeedfaceL, 0, 3L);
        ByteBuf termBuf = Unpooled.buffer();
        SouthboundCodec.encode(termOnly, termBuf);
        termBuf.skipBytes(4);
        assertThat(SouthboundCodec.decode(termBuf)).isEqualTo(termOnly);
        ByteBuf noTerm = Unpooled.buffer();
        SouthboundCodec.encode(new LftCommit(6, 7, 195, 2, 0xfeedfaceL, 0), noTerm);
        ByteBuf old = Unpooled.buffer();
        SouthboundCodec.encode(new LftCommit(6, 7, 195, 2, 0xfeedfaceL), old);
        assertThat(noTerm).as("term 0 is not sent: a single manager's frames are unchanged").isEqualTo(old);
    }

    @Test
    void trailingBytesAreMalformed() {
        ByteBuf buf = Unpooled.buffer();
        SouthboundCodec.encode(new EchoReply(1, 2), buf);
        buf.writeByte(0);
        buf.skipBytes(4);
        assertThatThrownBy(() -> SouthboundCodec.decode(buf)).hasMessageContaining("1 unexpected bytes");
    }

    @Test
    void helloWithBadMagicIsUnsupportedVersion() {
        ByteBuf buf = Unpooled.buffer();
        SouthboundCodec.encode(new Hello(1, 1, 1, 5, 0, 4, 4096, 0, 0, TableHash.EMPTY, "x"), buf);
        buf.setInt(9, 0x47455420); // "GET "
        buf.skipBytes(4);
        assertThatThrownBy(() -> SouthboundCodec.decode(buf)).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED_VERSION));
    }

    @Test
    void fieldRulesAreEnforced() {
        assertMalformed(new Hello(1, 2, 1, 5, 0, 4, 4096, 0, 0, 0, "x"), "version range");
        assertMalformed(new Hello(1, 1, 1, 0, 0, 4, 4096, 0, 0, 0, "x"), "GUID 0");
        assertMalformed(new Hello(1, 1, 1, 5, 0, 255, 4096, 0, 0, 0, "x"), "port count 255");
        assertMalformed(new Hello(1, 1, 1, 5, 0, 4, 100, 0, 0, 0, "x"), "maxFrame 100");
        assertMalformed(new PortStatus(1, List.of(new PortRecord(1, PortRecord.State.DOWN, PortRecord.PeerKind.SWITCH, 7, 1, ""))),
                "DOWN but names a peer");
        assertMalformed(new PortStatus(1, List.of(new PortRecord(1, PortRecord.State.UP, PortRecord.PeerKind.NODE, 7, 2, ""))),
                "a node's port is 1");
        assertMalformed(new PortStatus(1, List.of(PortRecord.down(3), PortRecord.down(3))), "reported twice");
        assertMalformed(new PortInfo(1, List.of(PortRecord.down(1), PortRecord.down(3))), "port 2 is missing");
        assertMalformed(new LftBlock(1, 1, 65, new byte[] {1}), "multiple of 64");
        assertMalformed(new LftBlock(1, 0, 0, new byte[] {1}), "version 0");
        assertMalformed(new LftBlock(1, 1, 0, new byte[65]), "count 65");
        assertMalformed(new LftCommit(1, 1, 64, 2, 0), "2 blocks cannot fit");
        assertMalformed(new Message.LftBlocks(1, 1, 65, new byte[] {1}), "multiple of 64");
        assertMalformed(new Message.LftBlocks(1, 0, 0, new byte[] {1}), "version 0");
        assertMalformed(new Message.LftBlocks(1, 1, 0, new byte[0]), "count 0");
        assertMalformed(new Message.LftBlocks(1, 1, 0, new byte[Protocol.MAX_RUN_ENTRIES + 1]), "count 4097");
        assertMalformed(new Message.LftBlocks(1, 1, Protocol.MAX_TABLE_LENGTH - 64, new byte[65]), "ending at most");
        assertMalformed(new Ack(1, MessageType.ECHO_REPLY), "not acknowledged");
    }

    /** A run written straight from a batch's blocks is byte for byte the LFT_BLOCKS message of their entries. */
    @Test
    void aRunEncodedFromBlocksIsTheLftBlocksMessageOfTheirEntries() {
        Random random = new Random(7);
        for (int trial = 0; trial < 200; trial++) {
            int first = random.nextInt(1_000);
            int full = 1 + random.nextInt(64);
            int last = 1 + random.nextInt(64);
            List<LftBatch.Block> blocks = new java.util.ArrayList<>();
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            for (int b = 0; b < full; b++) {
                byte[] e = new byte[b == full - 1 ? last : 64];
                random.nextBytes(e);
                blocks.add(new LftBatch.Block((first + b) * 64, e));
                all.writeBytes(e);
            }
            LftBatch batch = new LftBatch(9, blocks, (first + full) * 64, 0);
            ByteBuf direct = Unpooled.buffer();
            SouthboundCodec.encodeRun(77, batch, 0, blocks.size(), direct);
            ByteBuf viaMessage = Unpooled.buffer();
            SouthboundCodec.encode(new Message.LftBlocks(77, 9, first * 64, all.toByteArray()), viaMessage);
            assertThat(ByteBufUtil.getBytes(direct)).isEqualTo(ByteBufUtil.getBytes(viaMessage));
            assertThat(direct.readableBytes()).isEqualTo(LftBatch.runFrameBytes(all.size()));
        }
    }

    private static void assertMalformed(Message m, String text) {
        ByteBuf buf = Unpooled.buffer();
        SouthboundCodec.encode(m, buf);
        buf.skipBytes(4);
        assertThatThrownBy(() -> SouthboundCodec.decode(buf)).as("%s", m)
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED))
                .hasMessageContaining(text);
    }

    @Test
    void invalidUtf8IsMalformed() {
        ByteBuf buf = Unpooled.buffer();
        SouthboundCodec.encode(new ErrorReport(1, 1, 0, "ab"), buf);
        buf.setByte(buf.writerIndex() - 1, 0xff);
        buf.skipBytes(4);
        assertThatThrownBy(() -> SouthboundCodec.decode(buf)).hasMessageContaining("not valid UTF-8");
    }

    @Test
    void longNamesAreCutAtACharacterBoundary() {
        String name = "é".repeat(40); // 80 bytes
        ByteBuf buf = Unpooled.buffer();
        SouthboundCodec.encode(new Hello(1, 1, 1, 5, 0, 4, 4096, 0, 0, 0, name), buf);
        buf.skipBytes(4);
        Hello h = (Hello) SouthboundCodec.decode(buf);
        assertThat(h.name()).isEqualTo("é".repeat(32));
    }

    @Test
    void randomPayloadsNeverEscapeAsAnythingButProtocolExceptions() {
        long seed = 20240601L;
        Random random = new Random(seed);
        for (int i = 0; i < 20_000; i++) {
            int length = 5 + random.nextInt(80);
            byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            bytes[0] = (byte) (1 + random.nextInt(14)); // every type, VC_RULES (0x0e) and an unknown one (0x0c, 0x0d)
            ByteBuf frame = Unpooled.wrappedBuffer(bytes);
            try {
                Message m = SouthboundCodec.decode(frame);
                ByteBuf again = Unpooled.buffer();
                SouthboundCodec.encode(m, again);
                again.skipBytes(4);
                assertThat(SouthboundCodec.decode(again)).as("seed %d, iteration %d", seed, i).isEqualTo(m);
            } catch (ProtocolException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            }
        }
    }
}
