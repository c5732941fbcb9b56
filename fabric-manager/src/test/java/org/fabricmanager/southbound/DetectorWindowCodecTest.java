package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** DETECTOR_WINDOW, DETECTOR_PEERS and DETECTOR_LOOKUP on the wire: round trips and every bound enforced. */
class DetectorWindowCodecTest {
    static final byte[] KEY = new byte[Message.DetectorConfig.KEY_BYTES];
    static final RingHeartbeats HEARTBEATS = new RingHeartbeats(100, 500, 100, Message.Overlay.BMG,
            Message.Transport.UDP);

    static Message.DetectorPeer peer(int index) throws Exception {
        return new Message.DetectorPeer(index, 0x1000L + index, index % 3,
                index % 2 == 0 ? InetAddress.getByName("10.0.0." + (index % 250 + 1)) : InetAddress.getByName("fd00::" + index),
                7000 + index);
    }

    static Message.DetectorWindow window(int n, int self, List<Message.DetectorPeer> members) {
        return new Message.DetectorWindow(3, 9, 0xCAFE, HEARTBEATS, new RingSeat(n, self, Message.StartMode.JOIN),
                members, KEY);
    }

    static ByteBuf encoded(Message m) {
        ByteBuf buf = Unpooled.buffer();
        SouthboundCodec.encode(m, buf);
        buf.skipBytes(Protocol.LENGTH_FIELD_BYTES);
        return buf;
    }

    @Test
    void windowsPeersAndLookupsSurviveARoundTripAndEveryCutIsMalformed() throws Exception {
        List<Message.DetectorPeer> members = List.of(peer(0), peer(1), peer(2), peer(98), peer(99));
        List<Message> samples = List.of(window(100, 1, members), new Message.DetectorPeers(4, 9, members),
                new Message.DetectorPeers(5, 9, List.of()), new Message.DetectorLookup(6, 9, new int[] {5, 60, 2}));
        for (Message m : samples) {
            ByteBuf frame = encoded(m);
            int full = frame.readableBytes();
            assertThat(SouthboundCodec.decode(frame.slice())).as("round trip of %s", m).isEqualTo(m);
            for (int cut = 5; cut < full; cut++) {
                ByteBuf partial = frame.slice(0, cut);
                assertThatThrownBy(() -> SouthboundCodec.decode(partial)).as("%s cut at %d", m, cut)
                        .isInstanceOf(ProtocolException.class);
            }
        }
    }

    static Message.DetectorWindow withDead(int n, int self, int... dead) throws Exception {
        return new Message.DetectorWindow(3, 9, 0xCAFE, HEARTBEATS,
                new RingSeat(n, self, Message.StartMode.BOOTSTRAP, dead), List.of(peer(0), peer(1), peer(2)), KEY);
    }

    @Test
    void slotsDeadAtStartAreAppendedOnlyWhenThereAreAnyAndCheckedLikeEveryField() throws Exception {
        Message.DetectorWindow plain = withDead(100, 1);
        Message.DetectorWindow slots = withDead(100, 1, 7, 40, 99);
        int plainBytes = encoded(plain).readableBytes();
        // the window of a ring without vacant slots is byte for byte what agents before FEATURE_DETECTOR_SLOTS decode
        assertThat(encoded(window(100, 1, List.of(peer(0), peer(1), peer(2)))).readableBytes()).isEqualTo(plainBytes);
        ByteBuf frame = encoded(slots);
        assertThat(frame.readableBytes()).as("a u16 count and 4 bytes a slot").isEqualTo(plainBytes + 2 + 3 * 4);
        assertThat(SouthboundCodec.decode(frame.slice())).isEqualTo(slots);
        for (int cut = plainBytes + 1; cut < frame.readableBytes(); cut++) {
            ByteBuf partial = frame.slice(0, cut);
            assertThatThrownBy(() -> SouthboundCodec.decode(partial)).as("cut at %d", cut)
                    .isInstanceOf(ProtocolException.class);
        }
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(withDead(100, 1, 40, 7))))
                .hasMessageContaining("dead-at-start member 7");
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(withDead(100, 1, 1))))
                .as("the agent itself").hasMessageContaining("dead-at-start member 1");
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(withDead(100, 1, 100))))
                .hasMessageContaining("dead-at-start member 100");
        ByteBuf zero = encoded(plain);
        zero.writeShort(0);
        assertThatThrownBy(() -> SouthboundCodec.decode(zero)).hasMessageContaining("dead-at-start count 0");
    }

    @Test
    void boundsAreEnforced() throws Exception {
        List<Message.DetectorPeer> tooMany = new ArrayList<>();
        for (int i = 0; i <= Protocol.MAX_DETECTOR_PEERS; i++) {
            tooMany.add(peer(i));
        }
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(window(1000, 0, tooMany))))
                .hasMessageContaining(Protocol.MAX_DETECTOR_PEERS + 1 + " members");
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(new Message.DetectorPeers(1, 1, tooMany))))
                .hasMessageContaining("members");
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(window(100, 1, List.of(peer(2), peer(1))))))
                .hasMessageContaining("ascend");
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(window(100, 1, List.of(peer(2), peer(2))))))
                .hasMessageContaining("ascend");
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(window(100, 1, List.of(peer(0), peer(2))))))
                .hasMessageContaining("does not contain the agent itself");
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(window(100, 1, List.of(peer(1), peer(100))))))
                .hasMessageContaining("outside the ring of 100");
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(window(1, 0, List.of(peer(0))))))
                .hasMessageContaining("member count 1");
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(new Message.DetectorLookup(1, 1, new int[0]))))
                .hasMessageContaining("0 members asked for");
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(new Message.DetectorLookup(1, 1,
                new int[Protocol.MAX_LOOKUP_MEMBERS + 1])))).hasMessageContaining("65 members asked for");
        assertThatThrownBy(() -> SouthboundCodec.decode(encoded(new Message.DetectorLookup(1, 1, new int[] {-1}))))
                .hasMessageContaining("outside any ring");
        ByteBuf zeroPort = encoded(new Message.DetectorPeers(1, 1, List.of(peer(0))));
        zeroPort.setShort(zeroPort.writerIndex() - 2, 0);
        assertThatThrownBy(() -> SouthboundCodec.decode(zeroPort)).hasMessageContaining("port 0");
    }

    @Test
    void randomBytesNeverDecodeToAnythingButAProtocolException() throws Exception {
        SplittableRandom random = new SplittableRandom(42);
        ByteBuf valid = encoded(window(100, 1, List.of(peer(0), peer(1), peer(2))));
        for (int round = 0; round < 5_000; round++) {
            ByteBuf frame = valid.copy();
            int flips = 1 + random.nextInt(4);
            for (int f = 0; f < flips; f++) {
                int at = 5 + random.nextInt(frame.readableBytes() - 5);
                frame.setByte(at, random.nextInt(256));
            }
            try {
                Message m = SouthboundCodec.decode(frame);
                Message.DetectorWindow w = (Message.DetectorWindow) m;
                assertThat(w.members()).as("seed 42 round %d", round).isNotEmpty().hasSizeLessThanOrEqualTo(3);
                assertThat(w.selfIndex()).isLessThan(w.memberCount());
            } catch (ProtocolException expected) {
                // refused with a reason: fine
            }
        }
    }
}
