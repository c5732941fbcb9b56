package org.fabricmanager.detector.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.fabricmanager.detector.message.BroadcastCopy;
import org.fabricmanager.detector.message.DetectorEvent.LinkDown;
import org.fabricmanager.detector.message.DetectorEvent.LinkUp;
import org.fabricmanager.detector.message.DetectorEvent.MemberFailed;
import org.fabricmanager.detector.message.DetectorEvent.MemberRejoined;
import org.fabricmanager.detector.message.Heartbeat;
import org.fabricmanager.detector.message.Join;
import org.fabricmanager.detector.message.LinkStatus;
import org.fabricmanager.detector.message.MemberStatus;
import org.fabricmanager.detector.message.NewObserver;
import org.fabricmanager.detector.message.RingMessage;
import org.fabricmanager.detector.message.StateKind;
import org.fabricmanager.detector.message.StateSync;
import org.fabricmanager.detector.message.Suspicion;
import org.junit.jupiter.api.Test;

class MessageCodecTest {
    private static final int N = 1000;
    private static final int RING = 0x1234ABCD;
    private final MessageCodec codec = new MessageCodec(N, RING);

    private static List<RingMessage> samples() {
        return List.of(
                new Heartbeat(3, 0, 0x0123456789ABCDEFL),
                new NewObserver(9, 2, List.of(new MemberStatus(8, 0, true), new MemberStatus(7, 5, true))),
                new NewObserver(9, 2, List.of()),
                new Join(999, 7),
                new StateSync(1, 0, StateKind.JOIN_ACCEPTED,
                        List.of(new MemberStatus(2, 0, true), new MemberStatus(5, 3, false)),
                        List.of(new LinkStatus(4, 1, 36, 9, true), new LinkStatus(4, 1, 37, 2, false))),
                new StateSync(1, 0, StateKind.SYNC, List.of(), List.of()),
                new BroadcastCopy(5, 1, 6, 0, 42, 1, 8, new int[] {7, 100, 998}, new MemberFailed(7, 0)),
                new BroadcastCopy(5, 1, 6, 0, 43, 0, 0, new int[0], new MemberRejoined(8, 3)),
                new BroadcastCopy(5, 1, 6, 0, 44, 0, 2, new int[] {1}, new LinkDown(6, 0, 12, 1)),
                new BroadcastCopy(5, 1, 6, 0, 45, 0, 3, new int[] {1}, new LinkUp(6, 0, 12, 2)),
                new Suspicion(4, 1, Suspicion.Kind.SUSPECT, 3, 0),
                new Suspicion(4, 1, Suspicion.Kind.PROBE, 3, 0),
                new Suspicion(3, 1, Suspicion.Kind.ALIVE, 3, 1),
                new Suspicion(5, 0, Suspicion.Kind.CONFIRM, 3, 0),
                new Suspicion(4, 1, Suspicion.Kind.NOTICE, 3, 2));
    }

    private byte[] bytes(RingMessage m) {
        List<ByteBuf> bufs = codec.encode(m, 0, ByteBufAllocator.DEFAULT);
        assertThat(bufs).hasSize(1);
        ByteBuf b = bufs.get(0);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        b.release();
        return out;
    }

    @Test
    void roundTripsEveryMessageType() throws Exception {
        for (RingMessage m : samples()) {
            byte[] wire = bytes(m);
            assertThat(wire.length).as("%s", m).isEqualTo(MessageCodec.encodedSize(m));
            assertThat(codec.decode(Unpooled.wrappedBuffer(wire))).isEqualTo(m);
        }
    }

    @Test
    void rejectsEveryTruncationOfAValidDatagramNamingWhatIsMissing() {
        for (RingMessage m : samples()) {
            byte[] wire = bytes(m);
            for (int len = 0; len < wire.length; len++) {
                ByteBuf cut = Unpooled.wrappedBuffer(wire, 0, len);
                int l = len;
                assertThatThrownBy(() -> codec.decode(cut)).as("%s cut to %d bytes", m, l)
                        .isInstanceOf(MalformedMessageException.class)
                        .hasMessageMatching("(truncated|.*count).*");
            }
        }
    }

    @Test
    void rejectsDatagramsOfAnotherRingVersionOrProtocol() {
        byte[] wire = bytes(new Heartbeat(3, 0, 1));
        assertThatThrownBy(() -> new MessageCodec(N, RING + 1).decode(Unpooled.wrappedBuffer(wire)))
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("fingerprint");
        byte[] badMagic = wire.clone();
        badMagic[0] = 'X';
        assertThatThrownBy(() -> codec.decode(Unpooled.wrappedBuffer(badMagic))).hasMessageContaining("magic");
        byte[] badVersion = wire.clone();
        badVersion[2] = 9;
        assertThatThrownBy(() -> codec.decode(Unpooled.wrappedBuffer(badVersion))).hasMessageContaining("version 9");
        byte[] badType = wire.clone();
        badType[3] = 77;
        assertThatThrownBy(() -> codec.decode(Unpooled.wrappedBuffer(badType))).hasMessageContaining("type 77");
        byte[] trailing = java.util.Arrays.copyOf(wire, wire.length + 1);
        assertThatThrownBy(() -> codec.decode(Unpooled.wrappedBuffer(trailing))).hasMessageContaining("trailing");
    }

    @Test
    void rejectsImpossibleContent() throws Exception {
        assertThatThrownBy(() -> new MessageCodec(10, RING).decode(Unpooled.wrappedBuffer(bytes(new Join(999, 7)))))
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("sender 999 is not a member");
        byte[] unsorted = bytes(new BroadcastCopy(5, 1, 6, 0, 42, 0, 0, new int[] {7, 100}, new MemberFailed(7, 0)));
        // Swap the two dead members (the last 8 bytes) so that the list is descending.
        byte[] swapped = unsorted.clone();
        System.arraycopy(unsorted, unsorted.length - 4, swapped, unsorted.length - 8, 4);
        System.arraycopy(unsorted, unsorted.length - 8, swapped, unsorted.length - 4, 4);
        assertThatThrownBy(() -> codec.decode(Unpooled.wrappedBuffer(swapped))).hasMessageContaining("ascending");
        byte[] negative = bytes(new Heartbeat(3, 0, 1));
        negative[12] = (byte) 0x80; // sign bit of the sender incarnation
        assertThatThrownBy(() -> codec.decode(Unpooled.wrappedBuffer(negative))).hasMessageContaining("outside 0..");
        byte[] huge = bytes(new Heartbeat(3, MessageCodec.MAX_INCARNATION + 1, 1));
        assertThatThrownBy(() -> codec.decode(Unpooled.wrappedBuffer(huge)))
                .as("an incarnation that would overflow a view (2^63 - 1 once blinded the detector)")
                .hasMessageContaining("sender incarnation " + (MessageCodec.MAX_INCARNATION + 1) + " is outside");
        byte[] largest = bytes(new Heartbeat(3, MessageCodec.MAX_INCARNATION, 1));
        assertThat(codec.decode(Unpooled.wrappedBuffer(largest))).isEqualTo(new Heartbeat(3, MessageCodec.MAX_INCARNATION, 1));
    }

    @Test
    void neverThrowsAnythingButMalformedMessageOnGarbageOrMutatedDatagrams() {
        List<byte[]> valid = new ArrayList<>();
        for (RingMessage m : samples()) {
            valid.add(bytes(m));
        }
        for (long seed = 1; seed <= 20_000; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            byte[] data;
            if (seed % 2 == 0) {
                data = new byte[random.nextInt(120)];
                random.nextBytes(data);
            } else {
                data = valid.get(random.nextInt(valid.size())).clone();
                for (int flips = 1 + random.nextInt(4); flips > 0 && data.length > 0; flips--) {
                    data[random.nextInt(data.length)] = (byte) random.nextInt(256);
                }
            }
            try {
                RingMessage decoded = codec.decode(Unpooled.wrappedBuffer(data));
                assertThat(decoded.from()).as("seed %d", seed).isBetween(0, N - 1);
            } catch (MalformedMessageException expected) {
                assertThat(expected.getMessage()).as("seed %d", seed).isNotBlank();
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + seed + ": decode threw " + e, e);
            }
        }
    }

    @Test
    void splitsALargeViewIntoDatagramsThatEachCarryTheReceiversOwnEntry() throws Exception {
        int n = 20_000;
        MessageCodec big = new MessageCodec(n, RING);
        List<MemberStatus> members = new ArrayList<>();
        for (int i = 0; i < 9000; i++) {
            members.add(new MemberStatus(i * 2, i % 3, i % 2 == 0));
        }
        List<LinkStatus> links = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            links.add(new LinkStatus(i, 0, i % 48, i, true));
        }
        int receiver = 4242;
        StateSync view = new StateSync(7, 1, StateKind.JOIN_ACCEPTED, members, links);
        List<ByteBuf> datagrams = big.encode(view, receiver, ByteBufAllocator.DEFAULT);
        assertThat(datagrams.size()).isGreaterThan(2);
        List<MemberStatus> gotMembers = new ArrayList<>();
        List<LinkStatus> gotLinks = new ArrayList<>();
        MemberStatus own = new MemberStatus(4242, 0, false);
        for (ByteBuf d : datagrams) {
            assertThat(d.readableBytes()).isLessThanOrEqualTo(MessageCodec.MAX_DATAGRAM);
            StateSync part = (StateSync) big.decode(d);
            d.release();
            assertThat(part.kind()).isEqualTo(StateKind.JOIN_ACCEPTED);
            assertThat(part.members()).first().isEqualTo(own);
            part.members().stream().filter(m -> !m.equals(own)).forEach(gotMembers::add);
            gotLinks.addAll(part.links());
        }
        List<MemberStatus> expected = new ArrayList<>(members);
        expected.remove(own);
        assertThat(gotMembers).containsExactlyElementsOf(expected);
        assertThat(gotLinks).containsExactlyElementsOf(links);
    }
}
