package org.fabricmanager.detector.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabricmanager.detector.DetectorConfig;
import org.fabricmanager.detector.DetectorMetrics;
import org.fabricmanager.detector.MembershipSnapshot;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.StartMode;
import org.fabricmanager.detector.overlay.Overlay;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Members that know only their ring window (2 on each side here) and look every other address up, as the
 * switch agents do: three consecutive members stop (the walk back goes beyond the window) and every other
 * member agrees on the dead set; broadcasts reach members whose addresses the relays had to ask for.
 */
class WindowRingTest {
    private static final Duration ETA = Duration.ofMillis(50);
    private static final Duration DELTA = Duration.ofMillis(400);
    private static final int WINDOW = 2;

    private final List<NettyRingDetector> detectors = new ArrayList<>();
    private final EventLoopGroup group = new NioEventLoopGroup(2);
    private final ScheduledExecutorService directory = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger lookups = new AtomicInteger();

    @AfterEach
    void closeAll() {
        detectors.forEach(NettyRingDetector::close);
        directory.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

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

    @Test
    void membersThatKnowOnlyTheirWindowAgreeOnThreeConsecutiveFailures() throws Exception {
        int n = 40;
        List<InetSocketAddress> addresses = loopbackAddresses(n);
        RingParameters p = RingParameters.of(ETA, DELTA, Overlay.HYPERCUBE);
        byte[] key = new byte[DetectorConfig.KEY_BYTES];
        new java.security.SecureRandom().nextBytes(key);
        int fingerprint = DetectorConfig.fingerprint(addresses, p);
        List<SimpleMeterRegistry> registries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Map<Integer, InetSocketAddress> window = new HashMap<>();
            for (int d = -WINDOW; d <= WINDOW; d++) {
                int m = Math.floorMod(i + d, n);
                window.put(m, addresses.get(m));
            }
            int self = i;
            DetectorConfig config = new DetectorConfig(n, window, i, p, StartMode.BOOTSTRAP, key, fingerprint);
            assertThat(config.address(Math.floorMod(i + WINDOW + 1, n))).isNull();
            // the daemon's answer, a moment later and from another thread, as over a TCP session
            SimpleMeterRegistry own = new SimpleMeterRegistry();
            registries.add(own);
            detectors.add(NettyRingDetector.start(config, e -> { }, own, group, members -> {
                lookups.incrementAndGet();
                directory.schedule(() -> {
                    for (int m : members) {
                        detectors.get(self).learn(m, addresses.get(m));
                    }
                }, 2, TimeUnit.MILLISECONDS);
            }));
        }
        // more than δ of running: every member heard δ's worth of heartbeats from its emitter
        long beatsInDelta = DELTA.toMillis() / ETA.toMillis() + 2;
        Await.until("every member to hear " + beatsInDelta + " heartbeats", () -> registries.stream()
                .allMatch(r -> r.get(DetectorMetrics.HEARTBEATS_RECEIVED).counter().count() >= beatsInDelta));
        assertThat(lookups.get()).as("the overlay neighbours were asked for at start").isPositive();
        for (NettyRingDetector d : detectors) {
            assertThat(d.snapshot().deadMembers()).as("member %d before the failures", d.self()).isEmpty();
        }
        int[] victims = {20, 21, 22};
        for (int v : victims) {
            detectors.get(v).close();
        }
        for (NettyRingDetector d : detectors) {
            if (d.self() >= victims[0] && d.self() <= victims[2]) {
                continue;
            }
            MembershipSnapshot s = Await.value("member " + d.self() + " to hold the three victims dead",
                    java.time.Duration.ofSeconds(20), d::snapshot, v -> v.deadMembers().length == victims.length);
            assertThat(s.deadMembers()).as("member %d", d.self()).containsExactly(victims);
        }
        // the observer of the last victim walked back beyond its window: it had to learn member 19's address
        assertThat(detectors.get(23).snapshot().emitter()).isEqualTo(19);
        assertThat(detectors.get(23).knownAddresses()).isGreaterThan(2 * WINDOW + 1);
    }

    @Test
    void aMemberOfAHugeRingKeepsStateOnlyForTheMembersItDealsWith() throws Exception {
        // a simulator runs thousands of members: each must cost what its window and overlay need, not the ring
        int n = 100_000;
        int window = 16;
        int self = 50_000;
        InetAddress loopback = InetAddress.getLoopbackAddress();
        Map<Integer, InetSocketAddress> known = new HashMap<>();
        for (int d = -window; d <= window; d++) {
            known.put(self + d, new InetSocketAddress(loopback, d == 0 ? 0 : 40_000 + d)); // nobody there
        }
        RingParameters p = RingParameters.of(ETA, DELTA, Overlay.BMG);
        java.util.Set<Integer> asked = java.util.concurrent.ConcurrentHashMap.newKeySet();
        NettyRingDetector d = NettyRingDetector.start(new DetectorConfig(n, known, self, p, StartMode.BOOTSTRAP,
                new byte[DetectorConfig.KEY_BYTES], 1), e -> { }, new SimpleMeterRegistry(), group, members -> {
                    for (int m : members) {
                        asked.add(m);
                    }
                });
        detectors.add(d);
        Await.until("its overlay peers to be asked for", () -> !asked.isEmpty()
                && d.peerCount() == 2 * window + 1 + asked.size());
        int overlayPeers = 2 * (32 - Integer.numberOfLeadingZeros(n - 1)); // self +- 2^j
        assertThat(asked).as("its overlay peers were asked for").isNotEmpty().hasSizeLessThanOrEqualTo(overlayPeers);
        assertThat(d.knownAddresses()).isEqualTo(2 * window + 1);
        assertThat(d.peerCount()).as("its window and the peers it asked for, out of %d members", n)
                .isEqualTo(2 * window + 1 + asked.size());

        // after failures it learns more addresses: its state grows with them, past its first arrays
        int before = d.peerCount();
        int learnt = 0;
        for (int m = 0; learnt < 300; m += 7) {
            if (Math.abs(m - self) > window && !asked.contains(m)) {
                d.learn(m, new InetSocketAddress(loopback, 1_024 + m % 30_000 + learnt));
                learnt++;
            }
        }
        assertThat(d.knownAddresses()).isEqualTo(2 * window + 1 + learnt);
        assertThat(d.peerCount()).isEqualTo(before + learnt);
    }
}
