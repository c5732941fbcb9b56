package org.fabricmanager.detector.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.detector.DetectorConfig;
import org.fabricmanager.detector.DetectorMetrics;
import org.fabricmanager.detector.MemberPhase;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.StartMode;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.message.DetectorEvent.MemberFailed;
import org.fabricmanager.detector.message.MemberStatus;
import org.fabricmanager.detector.message.StateKind;
import org.fabricmanager.detector.message.StateSync;
import org.fabricmanager.detector.overlay.Overlay;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A ring with a key, attacked on loopback: a forged datagram (one "view" saying a healthy member is dead,
 * sent from the address of a member that is not running, as a spoofer would), the same datagram sealed with
 * an earlier epoch's key, a replayed genuine datagram and seeded random garbage are refused and counted, and
 * nobody is declared dead; a real silent death is still found within delta. The same forgery against a ring
 * without a key shows the attack works.
 */
class AuthenticatedRingTest {
    private static final Duration ETA = Duration.ofMillis(50);
    private static final Duration DELTA = Duration.ofMillis(400);
    /** Members 0..2 run; member 3's address is the attacker's. */
    private static final int N = 4;

    private final List<NettyRingDetector> detectors = new ArrayList<>();
    private final List<List<DetectorEvent>> events = new ArrayList<>();
    /** One registry per member, so that a test can wait on one member's counters. */
    private final List<SimpleMeterRegistry> registries = new ArrayList<>();
    private List<InetSocketAddress> addresses;

    @AfterEach
    void closeAll() {
        detectors.forEach(NettyRingDetector::close);
    }

    private static byte[] key(int seed) {
        byte[] k = new byte[DetectorConfig.KEY_BYTES];
        new SplittableRandom(seed).nextBytes(k);
        return k;
    }

    /** Members 0..2 with {@code key}, in JOIN-free bootstrap; member 3 never starts. */
    private void startRing(byte[] key) throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        List<DatagramSocket> held = new ArrayList<>();
        addresses = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            DatagramSocket s = new DatagramSocket(0, loopback);
            held.add(s);
            addresses.add(new InetSocketAddress(loopback, s.getLocalPort()));
        }
        held.forEach(DatagramSocket::close);
        RingParameters p = RingParameters.of(ETA, DELTA, Overlay.HYPERCUBE);
        for (int i = 0; i < N - 1; i++) {
            List<DetectorEvent> mine = new CopyOnWriteArrayList<>();
            events.add(mine);
            SimpleMeterRegistry own = new SimpleMeterRegistry();
            registries.add(own);
            detectors.add(NettyRingDetector.start(new DetectorConfig(addresses, i, p, StartMode.BOOTSTRAP, key),
                    mine::add, own));
        }
        // member 3 never ran: its observer declares it dead after the start-up grace; wait until all know
        Await.until("every running member to hold member 3 dead",
                () -> detectors.stream().allMatch(d -> d.snapshot().isDead(3)));
    }

    private double heartbeatsReceived(int member) {
        return registries.get(member).get(DetectorMetrics.HEARTBEATS_RECEIVED).counter().count();
    }

    /** A view from "member 3" saying member 1 is dead, sealed with {@code key} (none: unsealed). */
    private byte[] forgedView(byte[] key, long sequence) {
        MessageCodec codec = new MessageCodec(N, new DetectorConfig(addresses, 0,
                RingParameters.of(ETA, DELTA, Overlay.HYPERCUBE), StartMode.BOOTSTRAP).fingerprint());
        StateSync lie = new StateSync(3, 5, StateKind.SYNC, List.of(new MemberStatus(1, 0, true)), List.of());
        ByteBuf buf = codec.encode(lie, 0, ByteBufAllocator.DEFAULT).get(0);
        try {
            if (key != null) {
                new DatagramSeal(key).seal(buf, sequence);
            }
            byte[] out = new byte[buf.readableBytes()];
            buf.readBytes(out);
            return out;
        } finally {
            buf.release();
        }
    }

    private void sendFromMember3(byte[]... datagrams) throws Exception {
        try (DatagramSocket attacker = new DatagramSocket(addresses.get(3))) {
            for (byte[] d : datagrams) {
                for (int to = 0; to < N - 1; to++) {
                    attacker.send(new DatagramPacket(d, d.length, addresses.get(to)));
                }
            }
        }
    }

    private double rejected() {
        return registries.stream().flatMap(r -> r.find(NettyRingDetector.REJECTED).counters().stream())
                .mapToDouble(Counter::count).sum();
    }

    private boolean anyoneThinksMember1Died() {
        return events.stream().flatMap(List::stream).anyMatch(e -> e instanceof MemberFailed f && f.member() == 1)
                || detectors.stream().anyMatch(d -> java.util.Arrays.stream(d.snapshot().deadMembers()).anyMatch(m -> m == 1));
    }

    @Test
    void withoutAKeyOneForgedDatagramKillsAHealthyMember() throws Exception {
        startRing(null);
        sendFromMember3(forgedView(null, 0));
        Await.until("the attack this key stops: someone thinks member 1 died", Duration.ofSeconds(5),
                this::anyoneThinksMember1Died);
    }

    @Test
    void forgedStaleEpochReplayedAndRandomDatagramsAreRefusedAndNobodyDies() throws Exception {
        byte[] key = key(1);
        startRing(key);
        double before = rejected();
        byte[] random = new byte[200];
        new SplittableRandom(7).nextBytes(random);
        random[0] = 0x46;
        random[1] = 0x44; // the magic, so that only the tag can tell
        sendFromMember3(forgedView(null, 0), forgedView(key(2), ReplayWindow.firstSequence(System.currentTimeMillis())),
                random);
        // a genuine datagram, sealed with the ring's key, sent twice: the second is a replay
        byte[] genuine = reSealedHeartbeat(key);
        sendFromMember3(genuine, genuine);
        int expected = 3 * (N - 1) + (N - 1);
        Await.value("the forged datagrams to be refused", Duration.ofSeconds(5), () -> rejected() - before,
                r -> r >= expected);
        assertThat(rejected() - before).as("unsealed, other epoch, random: 3 x 3 members; replays: 3").isEqualTo(expected);
        // More than δ passes with member 1 beating: its observer (member 2) hears δ's worth more of its heartbeats.
        double heard = heartbeatsReceived(2);
        long beatsInDelta = DELTA.toMillis() / ETA.toMillis() + 2;
        Await.until("member 2 to hear " + beatsInDelta + " more heartbeats of member 1",
                () -> heartbeatsReceived(2) >= heard + beatsInDelta);
        assertThat(anyoneThinksMember1Died()).isFalse();
        assertThat(detectors).allMatch(d -> d.snapshot().phase() == MemberPhase.RUNNING);
        assertThat(registries.stream().mapToDouble(r -> r.find(NettyRingDetector.REJECTED).tag("reason", "replayed")
                .counters().stream().mapToDouble(Counter::count).sum()).sum()).isEqualTo(N - 1);
    }

    /** A heartbeat of member 3, sealed with the ring's key: what an eavesdropper could capture and replay. */
    private byte[] reSealedHeartbeat(byte[] key) {
        MessageCodec codec = new MessageCodec(N, new DetectorConfig(addresses, 0,
                RingParameters.of(ETA, DELTA, Overlay.HYPERCUBE), StartMode.BOOTSTRAP).fingerprint());
        ByteBuf buf = codec.encode(new org.fabricmanager.detector.message.Heartbeat(3, 0, 0), 0, ByteBufAllocator.DEFAULT)
                .get(0);
        try {
            new DatagramSeal(key).seal(buf, ReplayWindow.firstSequence(System.currentTimeMillis()));
            byte[] out = new byte[buf.readableBytes()];
            buf.readBytes(out);
            return out;
        } finally {
            buf.release();
        }
    }

    @Test
    void aRealSilentDeathIsStillFoundWithinDelta() throws Exception {
        startRing(key(3));
        long stopped = System.nanoTime();
        detectors.get(2).close();
        Await.until("member 0 to learn member 2 failed", Duration.ofSeconds(5), () -> events.get(0).stream()
                .anyMatch(e -> e instanceof MemberFailed f && f.member() == 2));
        long foundMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
        assertThat(events.get(0)).anyMatch(e -> e instanceof MemberFailed f && f.member() == 2);
        assertThat(foundMs).as("found after %d ms; delta %d ms", foundMs, DELTA.toMillis()).isLessThan(5_000);
        assertThat(events.get(0)).noneMatch(e -> e instanceof MemberFailed f && f.member() < 2);
        assertThat(rejected()).as("the members' own datagrams all pass").isZero();
    }

    @Test
    void replayWindowTakesEachSequenceOnceReorderedOrNot() {
        ReplayWindow w = new ReplayWindow(2);
        long s = ReplayWindow.firstSequence(1_700_000_000_000L);
        assertThat(w.accept(1, 3, s + 10)).isEqualTo(ReplayWindow.Verdict.ACCEPTED);
        assertThat(w.accept(1, 3, s + 8)).as("reordered").isEqualTo(ReplayWindow.Verdict.ACCEPTED);
        assertThat(w.accept(1, 3, s + 8)).isEqualTo(ReplayWindow.Verdict.REPLAYED);
        assertThat(w.accept(1, 3, s + 10)).isEqualTo(ReplayWindow.Verdict.REPLAYED);
        assertThat(w.accept(1, 3, s + 200)).isEqualTo(ReplayWindow.Verdict.ACCEPTED);
        assertThat(w.accept(1, 3, s + 100)).as("beyond the window").isEqualTo(ReplayWindow.Verdict.TOO_OLD);
        assertThat(w.accept(1, 3 + ReplayWindow.MAX_JUMP + 1, s + 201)).isEqualTo(ReplayWindow.Verdict.INCARNATION_JUMP);
        assertThat(w.accept(1, 0, s + 202)).as("a restarted member joins at a low incarnation first")
                .isEqualTo(ReplayWindow.Verdict.ACCEPTED);
        assertThat(w.accept(0, Long.MAX_VALUE, 1)).as("first contact").isEqualTo(ReplayWindow.Verdict.ACCEPTED);
    }

    @Test
    void aTamperedByteAnywhereFailsTheTag() {
        byte[] key = key(4);
        DatagramSeal seal = new DatagramSeal(key);
        ByteBuf buf = ByteBufAllocator.DEFAULT.heapBuffer();
        try {
            buf.writeBytes("a ring message of some length".getBytes());
            seal.seal(buf, 42);
            assertThat(new DatagramSeal(key).open(buf)).isEqualTo(42);
            assertThat(new DatagramSeal(key(5)).open(buf)).as("another key").isEqualTo(-1);
            for (int i = 0; i < buf.readableBytes(); i++) {
                buf.setByte(i, buf.getByte(i) ^ 1);
                assertThat(new DatagramSeal(key).open(buf)).as("byte %d flipped", i).isEqualTo(-1);
                buf.setByte(i, buf.getByte(i) ^ 1);
            }
        } finally {
            buf.release();
        }
    }
}
