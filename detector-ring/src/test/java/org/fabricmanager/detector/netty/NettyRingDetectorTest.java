package org.fabricmanager.detector.netty;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.nio.NioEventLoopGroup;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.detector.DetectorConfig;
import org.fabricmanager.detector.DetectorMetrics;
import org.fabricmanager.detector.MemberPhase;
import org.fabricmanager.detector.MembershipSnapshot;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.StartMode;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.message.DetectorEvent.LinkDown;
import org.fabricmanager.detector.message.DetectorEvent.MemberFailed;
import org.fabricmanager.detector.overlay.Overlay;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Real members on loopback UDP, one event-loop thread each. */
class NettyRingDetectorTest {
    private static final Duration ETA = Duration.ofMillis(50);
    private static final Duration DELTA = Duration.ofMillis(400);

    private final List<NettyRingDetector> detectors = new ArrayList<>();
    private final List<List<DetectorEvent>> events = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    /** One registry per member started by {@link #startRing}, so that a test can wait on one member's counters. */
    private final List<SimpleMeterRegistry> registries = new ArrayList<>();

    @AfterEach
    void closeAll() {
        detectors.forEach(NettyRingDetector::close);
    }

    /** Free loopback ports, held together while chosen so that no two members get the same one. */
    private static List<InetSocketAddress> loopbackAddresses(int n) throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        List<DatagramSocket> held = new ArrayList<>();
        List<InetSocketAddress> out = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                DatagramSocket s = new DatagramSocket(0, loopback);
                held.add(s);
                out.add(new InetSocketAddress(loopback, s.getLocalPort()));
            }
        } finally {
            held.forEach(DatagramSocket::close);
        }
        return out;
    }

    private List<InetSocketAddress> startRing(int n, Overlay overlay, CountDownLatch latch, int failedMember) throws Exception {
        List<InetSocketAddress> addresses = loopbackAddresses(n);
        RingParameters p = RingParameters.of(ETA, DELTA, overlay);
        for (int i = 0; i < n; i++) {
            List<DetectorEvent> mine = new CopyOnWriteArrayList<>();
            events.add(mine);
            SimpleMeterRegistry own = new SimpleMeterRegistry();
            registries.add(own);
            detectors.add(NettyRingDetector.start(new DetectorConfig(addresses, i, p, StartMode.BOOTSTRAP), e -> {
                mine.add(e);
                if (latch != null && e.equals(new MemberFailed(failedMember, 0))) {
                    latch.countDown();
                }
            }, own));
        }
        return addresses;
    }

    /** Heartbeats member {@code i} (started by {@link #startRing}) has received from its emitter. */
    private double heartbeatsReceived(int i) {
        return registries.get(i).get(DetectorMetrics.HEARTBEATS_RECEIVED).counter().count();
    }

    /** Waits until every member started by {@link #startRing} has heard its emitter. */
    private void awaitEveryEmitterHeard() {
        Await.until("every member heard its emitter", () -> {
            for (int i = 0; i < registries.size(); i++) {
                if (heartbeatsReceived(i) < 1) {
                    return false;
                }
            }
            return true;
        });
    }

    private static long detectorThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("fabric-detector-") && t.isAlive()).count();
    }

    /**
     * An event loop completes its termination future from its own thread just before that thread
     * ends, so a thread may still be alive for a moment after close() returns; wait a bounded time.
     */
    private static long threadsLeftAfterClose() {
        return Await.value("detector threads to end after close", Duration.ofSeconds(5),
                NettyRingDetectorTest::detectorThreads, left -> left == 0);
    }

    @Test
    void sixtyFourMembersOnLoopbackAllLearnOfAStoppedMemberWithinDeltaAndShutDownCleanly() throws Exception {
        int n = 64;
        int victim = 17;
        CountDownLatch learned = new CountDownLatch(n - 1);
        startRing(n, Overlay.HYPERCUBE, learned, victim);
        assertThat(detectorThreads()).isEqualTo(n);
        awaitEveryEmitterHeard(); // a failure is then found after δ, not after the start-up grace
        for (NettyRingDetector d : detectors) {
            assertThat(d.snapshot().phase()).isEqualTo(MemberPhase.RUNNING);
        }

        long stoppedAt = System.nanoTime();
        detectors.get(victim).close();
        // whether every member learns of it, once: its time is printed, a figure, not a bound (64 event loops on two
        // cores beside other JVMs took 3.4 s where δ is 0.4 s); the detector's latency is measured by benchmarks
        long margin = 20_000;
        boolean all = learned.await(DELTA.toMillis() + margin, TimeUnit.MILLISECONDS);
        long tookMs = (System.nanoTime() - stoppedAt) / 1_000_000;
        assertThat(all).as("all %d others learned of member %d within δ + %d ms (took %d ms)", n - 1, victim, margin, tookMs)
                .isTrue();
        System.out.printf("netty: %d members learned of member %d %d ms after it stopped (δ = %d ms)%n", n - 1, victim,
                tookMs, DELTA.toMillis());
        for (int i = 0; i < n; i++) {
            if (i != victim) {
                assertThat(events.get(i)).as("member %d", i).containsOnlyOnce(new MemberFailed(victim, 0));
            }
        }
        // Views settle on D = {victim} (a false suspicion on an overloaded host would heal too).
        for (int i = 0; i < n; i++) {
            if (i == victim) {
                continue;
            }
            NettyRingDetector d = detectors.get(i);
            MembershipSnapshot s = Await.value("member " + i + "'s view to settle on one dead member",
                    Duration.ofSeconds(10), d::snapshot, v -> v.deadMembers().length == 1);
            assertThat(s.deadMembers()).as("member %d", i).containsExactly(victim);
            assertThat(s.emitter()).as("member %d", i).isEqualTo(i == victim + 1 ? victim - 1 : Math.floorMod(i - 1, n));
        }

        detectors.forEach(NettyRingDetector::close);
        assertThat(threadsLeftAfterClose()).as("threads left after close").isZero();
    }

    @Test
    void aRestartedAgentJoinsAtTheNextIncarnationAndEveryMemberSeesItRejoin() throws Exception {
        int n = 8;
        int agent = 5;
        CountDownLatch learned = new CountDownLatch(n - 1);
        List<InetSocketAddress> addresses = startRing(n, Overlay.HYPERCUBE, learned, agent);
        awaitEveryEmitterHeard();
        detectors.get(agent).close();
        assertThat(learned.await(DELTA.toMillis() + 20_000, TimeUnit.MILLISECONDS)).as("every other member learned of it").isTrue();

        List<DetectorEvent> restarted = new CopyOnWriteArrayList<>();
        RingParameters p = RingParameters.of(ETA, DELTA, Overlay.HYPERCUBE);
        detectors.add(NettyRingDetector.start(new DetectorConfig(addresses, agent, p, StartMode.JOIN), restarted::add, registry));
        NettyRingDetector fresh = detectors.get(detectors.size() - 1);
        for (int i = 0; i < n; i++) {
            List<DetectorEvent> mine = i == agent ? restarted : events.get(i);
            Await.until("member " + i + " to see member " + agent + " rejoin: " + mine, Duration.ofSeconds(10),
                    () -> mine.contains(new DetectorEvent.MemberRejoined(agent, 1)));
            assertThat(mine).as("member %d", i).containsOnlyOnce(new DetectorEvent.MemberRejoined(agent, 1));
        }
        assertThat(fresh.snapshot().phase()).isEqualTo(MemberPhase.RUNNING);
        assertThat(fresh.snapshot().incarnation()).isEqualTo(1);
        for (int i = 0; i < n; i++) {
            NettyRingDetector d = i == agent ? fresh : detectors.get(i);
            Await.value("member " + i + " to hold no member dead", Duration.ofSeconds(10), d::snapshot,
                    v -> v.deadMembers().length == 0);
            assertThat(d.snapshot().deadMembers()).as("member %d", i).isEmpty();
        }
    }

    @Test
    void aLinkFaultReportedByOneMemberReachesEveryListener() throws Exception {
        int n = 6;
        startRing(n, Overlay.BMG, null, -1);
        awaitEveryEmitterHeard();
        detectors.get(2).reportLinkDown(5);
        for (int i = 0; i < n; i++) {
            List<DetectorEvent> mine = events.get(i);
            Await.until("member " + i + " to hear of the link fault", Duration.ofSeconds(5),
                    () -> mine.contains(new LinkDown(2, 0, 5, 1)));
            assertThat(events.get(i)).as("member %d", i).containsOnlyOnce(new LinkDown(2, 0, 5, 1));
        }
    }

    @Test
    void malformedDatagramsAreCountedAndLoggedButNeverDisturbAMember() throws Exception {
        List<InetSocketAddress> addresses = startRing(3, Overlay.HYPERCUBE, null, -1);
        InetSocketAddress target = addresses.get(1);
        MessageCodec foreign = new MessageCodec(3, 0xBADBAD);
        byte[] otherRing;
        var buf = foreign.encode(new org.fabricmanager.detector.message.Join(0, 0), 1, io.netty.buffer.ByteBufAllocator.DEFAULT).get(0);
        otherRing = new byte[buf.readableBytes()];
        buf.readBytes(otherRing);
        buf.release();
        byte[][] junk = {new byte[0], "hello".getBytes(), new byte[] {0x46, 0x44, 1, 5, 0, 0}, otherRing, new byte[3000]};
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            for (byte[] j : junk) {
                socket.send(new DatagramPacket(j, j.length, target));
            }
        }
        Await.value("the junk to be counted", Duration.ofSeconds(5),
                () -> registries.get(1).get(NettyRingDetector.MALFORMED).counter().count(), c -> c >= junk.length);
        assertThat(registries.get(1).get(NettyRingDetector.MALFORMED).counter().count()).isEqualTo(junk.length);
        // Member 1 still beats after the junk: its observer (member 2) hears more than δ's worth of its heartbeats.
        double heard = heartbeatsReceived(2);
        long beatsInDelta = DELTA.toMillis() / ETA.toMillis() + 2;
        Await.until("member 2 to hear " + beatsInDelta + " more heartbeats of member 1",
                () -> heartbeatsReceived(2) >= heard + beatsInDelta);
        assertThat(detectors.get(1).snapshot().phase()).isEqualTo(MemberPhase.RUNNING);
        assertThat(detectors.get(1).snapshot().deadMembers()).isEmpty();
        assertThat(events).allMatch(List::isEmpty);
    }

    @Test
    void closingAMemberOnASharedEventLoopGroupLeavesTheGroupRunning() throws Exception {
        List<InetSocketAddress> addresses = loopbackAddresses(2);
        RingParameters p = RingParameters.of(ETA, DELTA, Overlay.BMG);
        NioEventLoopGroup group = new NioEventLoopGroup(1);
        try {
            ConcurrentHashMap<Integer, Boolean> seen = new ConcurrentHashMap<>();
            NettyRingDetector a = NettyRingDetector.start(new DetectorConfig(addresses, 0, p, StartMode.BOOTSTRAP),
                    e -> seen.put(0, true), registry, group);
            NettyRingDetector b = NettyRingDetector.start(new DetectorConfig(addresses, 1, p, StartMode.BOOTSTRAP),
                    e -> seen.put(1, true), registry, group);
            a.close();
            assertThat(group.isShuttingDown()).isFalse();
            assertThat(b.snapshot().phase()).isEqualTo(MemberPhase.RUNNING);
            b.close();
            assertThat(group.isShuttingDown()).isFalse();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * A member on its own event loop (an agent's, the daemon's) logs its start and stop at INFO; members on a shared
     * loop (a simulator hosts thousands) at DEBUG, so that a simulator's log is not two lines per switch.
     */
    @Test
    void membersOnASharedEventLoopLogTheirStartAndStopAtDebug() throws Exception {
        List<InetSocketAddress> addresses = loopbackAddresses(2);
        RingParameters p = RingParameters.of(ETA, DELTA, Overlay.BMG);
        Logger logger = (Logger) LoggerFactory.getLogger(NettyRingDetector.class);
        Level before = logger.getLevel();
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        logger.setLevel(Level.DEBUG);
        NioEventLoopGroup group = new NioEventLoopGroup(1);
        try {
            NettyRingDetector.start(new DetectorConfig(addresses, 0, p, StartMode.BOOTSTRAP), e -> { }, registry).close();
            NettyRingDetector.start(new DetectorConfig(addresses, 1, p, StartMode.BOOTSTRAP), e -> { }, registry, group)
                    .close();
        } finally {
            logger.detachAppender(lines);
            logger.setLevel(before);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        List<String> seen;
        synchronized (lines) {
            seen = lines.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage().replaceAll(" on UDP .*", ""))
                    .toList();
        }
        assertThat(seen).containsExactly("INFO member 0: detector listening", "INFO member 0: detector stopped",
                "DEBUG member 1: detector listening", "DEBUG member 1: detector stopped");
    }
}
