package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.fabricmanager.southbound.Message.EchoReply;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {

    private static EmbeddedChannel channel(int max) {
        return new EmbeddedChannel(new FrameDecoder(max), new MessageDecoder(), MessageEncoder.INSTANCE);
    }

    private static ByteBuf frames(Message... messages) {
        ByteBuf buf = Unpooled.buffer();
        for (Message m : messages) {
            SouthboundCodec.encode(m, buf);
        }
        return buf;
    }

    @Test
    void reassemblesFramesSplitAcrossReadsAndSplitsCoalescedOnes() {
        EmbeddedChannel ch = channel(4096);
        ByteBuf all = frames(new EchoReply(1, 10), new EchoReply(2, 20), new EchoReply(3, 30));
        while (all.isReadable()) {
            ch.writeInbound(all.readRetainedSlice(Math.min(3, all.readableBytes())));
        }
        all.release();
        assertThat((Message) ch.readInbound()).isEqualTo(new EchoReply(1, 10));
        assertThat((Message) ch.readInbound()).isEqualTo(new EchoReply(2, 20));
        assertThat((Message) ch.readInbound()).isEqualTo(new EchoReply(3, 30));
        assertThat(ch.<Object>readInbound()).isNull();
    }

    @Test
    void oversizedFrameIsRejectedAsSoonAsItsLengthIsRead() {
        EmbeddedChannel ch = channel(1024);
        ByteBuf header = Unpooled.buffer().writeInt(1_000_000).writeByte(0x03).writeInt(77);
        assertThatThrownBy(() -> ch.writeInbound(header)).isInstanceOfSatisfying(ProtocolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.FRAME_TOO_LARGE);
            assertThat(e.txid()).isEqualTo(77);
            assertThat(e.getMessage()).contains("1000000").contains("1024");
        });
        // everything after the violation is discarded
        ch.writeInbound(frames(new EchoReply(1, 1)));
        assertThat(ch.<Object>readInbound()).isNull();
    }

    @Test
    void lengthBelowHeaderIsMalformed() {
        EmbeddedChannel ch = channel(1024);
        assertThatThrownBy(() -> ch.writeInbound(Unpooled.buffer().writeInt(2).writeShort(0)))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED));
    }

    @Test
    void connectionClosedInsideAFrameIsReportedAsTruncated() {
        EmbeddedChannel ch = channel(4096);
        ByteBuf whole = frames(new EchoReply(1, 10));
        ch.writeInbound(whole.readRetainedSlice(7));
        whole.release();
        assertThatThrownBy(ch::finish).isInstanceOfSatisfying(ProtocolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED);
            assertThat(e.getMessage()).contains("truncated frame: 7 of 17 bytes");
        });
    }

    @Test
    void rejectsAnUnreasonableLimit() {
        assertThatThrownBy(() -> new FrameDecoder(10)).isInstanceOf(IllegalArgumentException.class);
    }
}
