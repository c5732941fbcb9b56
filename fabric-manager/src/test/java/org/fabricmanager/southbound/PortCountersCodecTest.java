package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Random;
import org.fabricmanager.southbound.Message.Counters;
import org.fabricmanager.southbound.Message.CountersRequest;
import org.junit.jupiter.api.Test;

/** PORT_COUNTERS_REQUEST and PORT_COUNTERS on the wire (docs/protocol.md, section 3.17): round trips and every bound. */
class PortCountersCodecTest {

    private static Message roundTrip(Message m) {
        ByteBuf buf = Unpooled.buffer();
        SouthboundCodec.encode(m, buf);
        assertThat(buf.getInt(0)).isEqualTo(buf.readableBytes() - Protocol.LENGTH_FIELD_BYTES);
        buf.skipBytes(Protocol.LENGTH_FIELD_BYTES);
        return SouthboundCodec.decode(buf);
    }

    /** A frame of {@code type} with {@code payload} as bytes, length field removed. */
    private static ByteBuf frame(MessageType type, int txid, byte[] payload) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(type.code());
        buf.writeInt(txid);
        buf.writeBytes(payload);
        return buf;
    }

    @Test
    void randomRequestsAndCountersSurviveARoundTrip() {
        long seed = 39L;
        Random random = new Random(seed);
        for (int i = 0; i < 2_000; i++) {
            int first = 1 + random.nextInt(Protocol.MAX_PORTS);
            int last = first + random.nextInt(Protocol.MAX_PORTS - first + 1);
            CountersRequest request = new CountersRequest(random.nextInt(), first, last);
            assertThat(roundTrip(request)).as("seed %d, iteration %d", seed, i).isEqualTo(request);
            long[] values = new long[(last - first + 1) * PortCounters.FIELDS];
            for (int v = 0; v < values.length; v++) {
                // the whole unsigned range, the "unavailable" marker and small counts
                values[v] = switch (random.nextInt(3)) {
                    case 0 -> random.nextLong();
                    case 1 -> PortCounters.UNAVAILABLE;
                    default -> random.nextInt(1_000);
                };
            }
            Counters counters = new Counters(random.nextInt(), new PortCounters(first, values));
            Message back = roundTrip(counters);
            assertThat(back).as("seed %d, iteration %d", seed, i).isEqualTo(counters);
            assertThat(((Counters) back).counters().get(last, PortCounter.TX_DROPS))
                    .isEqualTo(values[values.length - 1]);
        }
    }

    @Test
    void requestPortsOutsideTheRulesAreMalformed() {
        for (int[] ports : new int[][] {{0, 1}, {5, 4}, {1, 255}, {255, 255}}) {
            ByteBuf f = frame(MessageType.PORT_COUNTERS_REQUEST, 3, new byte[] {(byte) ports[0], (byte) ports[1]});
            assertThatThrownBy(() -> SouthboundCodec.decode(f)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("ports " + ports[0] + ".." + ports[1]);
        }
        assertThatThrownBy(() -> SouthboundCodec.decode(frame(MessageType.PORT_COUNTERS_REQUEST, 3, new byte[] {1})))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("payload ends inside ports");
        assertThatThrownBy(() -> SouthboundCodec.decode(frame(MessageType.PORT_COUNTERS_REQUEST, 3, new byte[] {1, 2, 3})))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("unexpected bytes");
    }

    @Test
    void countersHeadersOutsideTheRulesAreMalformed() {
        // first port 0, no port, past port 254, too few and too many fields
        int[][] headers = {{0, 1, 8}, {1, 0, 8}, {251, 5, 8}, {1, 1, 7}, {1, 1, 33}};
        for (int[] h : headers) {
            ByteBuf f = frame(MessageType.PORT_COUNTERS, 4, new byte[] {(byte) h[0], (byte) h[1], (byte) h[2]});
            f.writeZero(h[1] * Math.max(h[2], 8) * 8);
            assertThatThrownBy(() -> SouthboundCodec.decode(f)).as("header %d %d %d", h[0], h[1], h[2])
                    .isInstanceOf(ProtocolException.class).extracting(e -> ((ProtocolException) e).code())
                    .isEqualTo(ErrorCode.MALFORMED);
        }
    }

    @Test
    void aCountIsCheckedAgainstTheBytesBeforeAnythingIsAllocated() {
        // 254 ports of 32 fields announced, 16 bytes sent
        ByteBuf f = frame(MessageType.PORT_COUNTERS, 4, new byte[] {1, (byte) 254, 32});
        f.writeZero(16);
        assertThatThrownBy(() -> SouthboundCodec.decode(f)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("payload ends inside counters");
    }

    @Test
    void fieldsOfALaterVersionAreReadAndIgnored() {
        ByteBuf f = frame(MessageType.PORT_COUNTERS, 9, new byte[] {3, 2, 10});
        for (int port = 0; port < 2; port++) {
            for (int field = 0; field < 10; field++) {
                f.writeLong(100L * port + field);
            }
        }
        Counters c = (Counters) SouthboundCodec.decode(f);
        assertThat(c.counters().firstPort()).isEqualTo(3);
        assertThat(c.counters().portCount()).isEqualTo(2);
        assertThat(c.counters().get(3, PortCounter.RX_PACKETS)).isZero();
        assertThat(c.counters().get(4, PortCounter.TX_DROPS)).isEqualTo(107);
    }

    @Test
    void aFrameOfTheMostPortsPerFrameFitsTheReceiverLimit() {
        Random random = new Random(5);
        for (int i = 0; i < 500; i++) {
            int maxFrame = Protocol.MIN_MAX_FRAME + random.nextInt(Protocol.DEFAULT_MAX_FRAME);
            int ports = PortCounters.portsPerFrame(maxFrame);
            int bytes = SouthboundCodec.frameBytes(new Counters(1, new PortCounters(1, new long[ports * PortCounters.FIELDS])))
                    - Protocol.LENGTH_FIELD_BYTES;
            assertThat(bytes).as("maxFrame %d", maxFrame).isLessThanOrEqualTo(maxFrame);
            if (ports < Protocol.MAX_PORTS) {
                assertThat(bytes + PortCounters.FIELDS * Long.BYTES).as("one port more, maxFrame %d", maxFrame)
                        .isGreaterThan(maxFrame);
            }
        }
        assertThat(PortCounters.portsPerFrame(Protocol.MIN_MAX_FRAME)).isEqualTo(15);
        assertThat(PortCounters.portsPerFrame(Protocol.DEFAULT_MAX_FRAME)).isEqualTo(Protocol.MAX_PORTS);
    }

    @Test
    void randomCountersPayloadsNeverEscapeAsAnythingButProtocolExceptions() {
        long seed = 3917L;
        Random random = new Random(seed);
        for (int i = 0; i < 5_000; i++) {
            byte[] payload = new byte[random.nextInt(200)];
            random.nextBytes(payload);
            if (payload.length >= 3 && random.nextBoolean()) {
                payload[1] = (byte) (1 + random.nextInt(3)); // a few ports, so that some frames are whole
                payload[2] = 8;
            }
            MessageType type = random.nextBoolean() ? MessageType.PORT_COUNTERS : MessageType.PORT_COUNTERS_REQUEST;
            try {
                Message m = SouthboundCodec.decode(frame(type, i, payload));
                assertThat(roundTrip(m)).as("seed %d, iteration %d", seed, i).isEqualTo(m);
            } catch (ProtocolException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            }
        }
    }
}
