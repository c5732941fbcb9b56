package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.SouthboundCodec;
import org.junit.jupiter.api.Test;

/**
 * The per-agent ring configuration (DETECTOR_WINDOW): its size does not grow with the ring, a member that
 * moves is announced only to the agents holding its address, and lookups are answered from the directory.
 */
class RingWindowTest {
    static final long DAEMON_ID = 0xDAE;

    /** A planned ring of {@code switches} switches at distinct IPv4 endpoints; the caller closes it. */
    static RingCoordinator planned(int switches, List<Long> order) throws Exception {
        int port;
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        RingCoordinator ring = new RingCoordinator(new DaemonConfig.Detector(true, 100, 500, "bmg", "127.0.0.1", port,
                7684, 30_000), DAEMON_ID, new SimpleMeterRegistry());
        Map<Long, InetSocketAddress> endpoints = new HashMap<>();
        for (int i = 0; i < switches; i++) {
            long guid = 0x1000L + i;
            order.add(guid);
            endpoints.put(guid, endpoint(i, 7684));
        }
        ring.plan(order, endpoints, event -> { });
        return ring;
    }

    static InetSocketAddress endpoint(int i, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, (byte) (i >> 16), (byte) (i >> 8),
                (byte) i}), port);
    }

    static int fullFormBytes(RingCoordinator ring, long guid) {
        int bytes = 0;
        for (Message.DetectorConfig chunk : ring.configFor(guid, false)) {
            bytes += SouthboundCodec.frameBytes(chunk);
        }
        return bytes;
    }

    @Test
    void detectorConfigBytesPerAgentAreTheSameAt192And768Switches() throws Exception {
        Map<Integer, Integer> windowBytes = new HashMap<>();
        Map<Integer, Integer> fullBytes = new HashMap<>();
        for (int switches : new int[] {192, 768}) {
            List<Long> order = new ArrayList<>();
            try (RingCoordinator ring = planned(switches, order)) {
                // every agent, wherever it sits in the ring (the window wraps at both ends), gets the same size
                java.util.Set<Integer> sizes = new java.util.HashSet<>();
                for (long guid : order) {
                    Message.DetectorWindow w = ring.windowFor(guid, false);
                    assertThat(w.members()).hasSize(2 * RingDirectory.WINDOW + 1);
                    assertThat(w.memberCount()).isEqualTo(switches + 1);
                    sizes.add(SouthboundCodec.frameBytes(w));
                }
                assertThat(sizes).as("window bytes of every agent at %d switches", switches).hasSize(1);
                windowBytes.put(switches, sizes.iterator().next());
                fullBytes.put(switches, fullFormBytes(ring, order.get(0)));
            }
        }
        System.out.printf("DETECTOR_CONFIG bytes per agent: window %d / %d, whole ring %d / %d (192 / 768 switches)%n",
                windowBytes.get(192), windowBytes.get(768), fullBytes.get(192), fullBytes.get(768));
        assertThat(windowBytes.get(768)).as("bytes per agent independent of n").isEqualTo(windowBytes.get(192));
        // 9 frame header, 35 fixed bytes, 2 count, 33 entries of 27 (IPv4), 32 key
        assertThat(windowBytes.get(192)).isEqualTo(9 + 35 + 2 + 33 * 27 + 32);
        assertThat(fullBytes.get(768)).as("the older form grows with n").isGreaterThan(3 * fullBytes.get(192));
    }

    @Test
    void windowsAreTheMembersWithinTheWindowOnEitherSideAscending() throws Exception {
        List<Long> order = new ArrayList<>();
        try (RingCoordinator ring = planned(100, order)) {
            int n = ring.size();
            for (int k : new int[] {0, 1, 15, 50, 99}) {
                long guid = order.get(k);
                Message.DetectorWindow w = ring.windowFor(guid, true);
                int self = k + 1;
                assertThat(w.selfIndex()).isEqualTo(self);
                assertThat(w.startMode()).isEqualTo(Message.StartMode.JOIN);
                List<Integer> expected = new ArrayList<>();
                for (int d = -RingDirectory.WINDOW; d <= RingDirectory.WINDOW; d++) {
                    expected.add(Math.floorMod(self + d, n));
                }
                expected.sort(null);
                assertThat(w.members()).extracting(Message.DetectorPeer::index).containsExactlyElementsOf(expected);
                for (Message.DetectorPeer p : w.members()) {
                    assertThat(p.guid()).isEqualTo(ring.guid(p.index()));
                }
            }
        }
    }

    @Test
    void oneJoinTouchesOnlyTheMembersHoldingItsAddressWithOneSmallUpdateEach() throws Exception {
        List<Long> order = new ArrayList<>();
        try (RingCoordinator ring = planned(768, order)) {
            long epoch = ring.epoch();
            int mover = 400;
            long moverGuid = ring.guid(mover);
            // three agents far away asked for its address (an overlay peer, a broadcast's verdict)
            long[] askers = {ring.guid(10), ring.guid(600), ring.guid(700)};
            for (long asker : askers) {
                Message.DetectorPeers answer = ring.lookup(7, epoch, asker, new int[] {mover, 5_000, mover});
                assertThat(answer.txid()).isEqualTo(7);
                assertThat(answer.members()).extracting(Message.DetectorPeer::index).containsExactly(mover);
            }
            Map<Long, Message.DetectorPeers> updates = ring.moved(moverGuid, endpoint(400, 9999));
            assertThat(updates.keySet()).as("its window and the three that asked").hasSize(2 * RingDirectory.WINDOW + 3)
                    .contains(askers[0], askers[1], askers[2]).doesNotContain(moverGuid);
            for (Message.DetectorPeers u : updates.values()) {
                assertThat(u.epoch()).isEqualTo(epoch);
                assertThat(u.members()).singleElement().satisfies(p -> {
                    assertThat(p.index()).isEqualTo(mover);
                    assertThat(p.port()).isEqualTo(9999);
                });
                assertThat(SouthboundCodec.frameBytes(u)).as("O(1) bytes").isEqualTo(9 + 8 + 2 + 27);
            }
            int total = updates.values().stream().mapToInt(SouthboundCodec::frameBytes).sum();
            System.out.printf("one join at 768 switches: %d agents told, %d bytes in all%n", updates.size(), total);
            assertThat(ring.epoch()).as("no new epoch, no new key").isEqualTo(epoch);
            assertThat(ring.windowFor(moverGuid, true).members()).filteredOn(p -> p.index() == mover)
                    .singleElement().extracting(Message.DetectorPeer::port).isEqualTo(9999);
            // nothing moved: nobody is told
            assertThat(ring.moved(moverGuid, endpoint(400, 9999))).isEmpty();
            // another member's endpoint is refused
            assertThat(ring.moved(moverGuid, endpoint(401, 7684))).isEmpty();
        }
    }

    @Test
    void lookupsOfAnotherEpochOrByANonMemberAreAnsweredWithNothing() throws Exception {
        List<Long> order = new ArrayList<>();
        try (RingCoordinator ring = planned(50, order)) {
            long epoch = ring.epoch();
            assertThat(ring.lookup(1, epoch - 1, order.get(3), new int[] {7}).members()).isEmpty();
            assertThat(ring.lookup(1, epoch, 0xBAD, new int[] {7}).members()).isEmpty();
            assertThat(ring.lookup(1, epoch, order.get(3), new int[] {-1, 51, 1 << 30}).members()).isEmpty();
        }
    }

    @Test
    void randomLookupsAreAnsweredAscendingOnceEachWithTheRingsEndpoints() throws Exception {
        List<Long> order = new ArrayList<>();
        try (RingCoordinator ring = planned(300, order)) {
            SplittableRandom random = new SplittableRandom(17);
            for (int round = 0; round < 200; round++) {
                int[] asked = random.ints(1 + random.nextInt(64), -5, 310).toArray();
                long asker = order.get(random.nextInt(order.size()));
                List<Message.DetectorPeer> got = ring.lookup(round, ring.epoch(), asker, asked).members();
                List<Integer> expected = java.util.Arrays.stream(asked).filter(m -> m >= 0 && m < ring.size())
                        .distinct().sorted().boxed().toList();
                assertThat(got).as("seed 17 round %d", round).extracting(Message.DetectorPeer::index)
                        .containsExactlyElementsOf(expected);
                for (Message.DetectorPeer p : got) {
                    assertThat(p.guid()).isEqualTo(ring.guid(p.index()));
                }
            }
        }
    }

    @Test
    void anAgentAskingForEverythingIsRememberedOnlyUpToItsBound() throws Exception {
        List<Long> order = new ArrayList<>();
        try (RingCoordinator ring = planned(2_000, order)) {
            long greedy = order.get(0);
            for (int from = 0; from < ring.size(); from += 64) {
                int[] all = java.util.stream.IntStream.range(from, Math.min(ring.size(), from + 64)).toArray();
                assertThat(ring.lookup(1, ring.epoch(), greedy, all).members()).hasSize(all.length);
            }
            int remembered = 0;
            for (int m = 1; m < ring.size(); m++) {
                if (ring.moved(ring.guid(m), endpoint(50_000 + m, 1)).containsKey(greedy)) {
                    remembered++;
                }
            }
            assertThat(remembered).as("told of its window and at most the bound").isLessThanOrEqualTo(
                    RingDirectory.MAX_REMEMBERED_PER_ASKER + 2 * RingDirectory.WINDOW).isGreaterThan(RingDirectory.WINDOW);
        }
    }
}
