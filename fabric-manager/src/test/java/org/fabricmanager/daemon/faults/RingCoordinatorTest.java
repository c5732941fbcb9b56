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
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.southbound.DetectorConfigReply;
import org.fabricmanager.southbound.DetectorConfigReply.Outcome;
import org.fabricmanager.southbound.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The daemon's ring plan: the configurations it hands out and how it tracks the agents' answers. */
class RingCoordinatorTest {
    static final int SWITCHES = 600; // three DETECTOR_CONFIG chunks of at most 256 members
    static final long DAEMON_ID = 0xDAE;

    RingCoordinator ring;
    final List<Long> order = new ArrayList<>();
    final Map<Long, InetSocketAddress> from = new HashMap<>();

    @BeforeEach
    void plan() throws Exception {
        int port;
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ring = new RingCoordinator(new DaemonConfig.Detector(true, 100, 500, "bmg", "127.0.0.1", port, 7684, 30_000),
                DAEMON_ID, new SimpleMeterRegistry());
        for (int i = 0; i < SWITCHES; i++) {
            long guid = 0x1000L + i;
            order.add(guid);
            from.put(guid, new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 1, (byte) (i / 250), (byte) (i % 250 + 1)}), 7684));
        }
        ring.plan(order, from, event -> { });
    }

    @AfterEach
    void close() {
        ring.close();
    }

    @Test
    void everySwitchGetsTheWholeRingInOrderWithItsOwnIndex() {
        assertThat(ring.size()).isEqualTo(SWITCHES + 1);
        for (int k : new int[] {0, 255, 256, SWITCHES - 1}) {
            long guid = order.get(k);
            List<Message.DetectorConfig> chunks = ring.configFor(guid, false);
            assertThat(chunks).hasSize(3);
            int next = 0;
            for (Message.DetectorConfig c : chunks) {
                assertThat(c.selfIndex()).isEqualTo(k + 1);
                assertThat(c.memberCount()).isEqualTo(SWITCHES + 1);
                assertThat(c.chunkStart()).isEqualTo(next);
                assertThat(c.startMode()).isEqualTo(Message.StartMode.BOOTSTRAP);
                assertThat(c.epoch()).isEqualTo(ring.epoch());
                next += c.members().size();
            }
            assertThat(next).isEqualTo(SWITCHES + 1);
            Message.DetectorMember daemon = chunks.get(0).members().get(0);
            assertThat(daemon.guid()).isEqualTo(DAEMON_ID);
            Message.DetectorMember self = chunks.get((k + 1) / 256).members().get((k + 1) % 256);
            assertThat(self.guid()).isEqualTo(guid);
            assertThat(self.address()).isEqualTo(from.get(guid).getAddress());
            assertThat(self.port()).isEqualTo(from.get(guid).getPort());
            assertThat(self.port()).isEqualTo(7684);
        }
        assertThat(ring.configFor(order.get(7), true)).allMatch(c -> c.startMode() == Message.StartMode.JOIN);
    }

    @Test
    void allSwitchesShareTheEpochsMemberLists() {
        List<Message.DetectorConfig> a = ring.configFor(order.get(1), false);
        List<Message.DetectorConfig> b = ring.configFor(order.get(2), true);
        for (int c = 0; c < a.size(); c++) {
            assertThat(b.get(c).members()).isSameAs(a.get(c).members());
        }
    }

    @Test
    void theLastAnswerEndsTheStartAndOnlyARefusalLeavesASwitchUnwatched() {
        long epoch = ring.epoch();
        assertThat(ring.awaitingAnswers()).isEqualTo(SWITCHES);
        long refuses = order.get(3);
        long silent = order.get(4);
        assertThat(ring.answered(epoch, refuses,
                new DetectorConfigReply(Outcome.NO_DETECTOR, "UNSUPPORTED_FEATURE: no detector"))).isFalse();
        assertThat(ring.answered(epoch, silent, new DetectorConfigReply(Outcome.NO_ANSWER, "timed out"))).isFalse();
        assertThat(ring.answered(epoch - 1, order.get(5), DetectorConfigReply.RUNNING)).as("stale epoch").isFalse();
        assertThat(ring.awaitingAnswers()).isEqualTo(SWITCHES - 2);
        boolean completed = false;
        for (long guid : order) {
            if (guid != refuses && guid != silent) {
                boolean last = ring.answered(epoch, guid, new DetectorConfigReply(Outcome.RUNNING, ""));
                assertThat(last).isEqualTo(guid == order.get(SWITCHES - 1));
                completed |= last;
            }
        }
        assertThat(completed).isTrue();
        assertThat(ring.awaitingAnswers()).isZero();
        assertThat(ring.unwatched(refuses)).isTrue();
        assertThat(ring.unwatched(silent)).as("a hung agent is what the ring is for").isFalse();
        assertThat(ring.unconfirmedAnswers()).as("the silent switch's member may still be starting").isEqualTo(1);
        assertThat(ring.unwatchedSwitches()).containsOnlyKeys(refuses);
        assertThat(ring.unwatchedSwitches().get(refuses)).isEqualTo("no failure detector: UNSUPPORTED_FEATURE: no detector");
        // a later JOIN of that switch with a running member makes it watched again; no second completion
        assertThat(ring.answered(epoch, refuses, new DetectorConfigReply(Outcome.RUNNING, ""))).isFalse();
        assertThat(ring.unwatched(refuses)).isFalse();
        // the silent switch's answer, late: confirmed, no second completion; a stale epoch's confirms nothing
        assertThat(ring.answered(epoch - 1, silent, DetectorConfigReply.RUNNING)).isFalse();
        assertThat(ring.unconfirmedAnswers()).isEqualTo(1);
        assertThat(ring.answered(epoch, silent, DetectorConfigReply.RUNNING)).isFalse();
        assertThat(ring.unconfirmedAnswers()).isZero();
    }

    @Test
    void aNewEpochForgetsTheLastOnesUnconfirmedSwitches() throws Exception {
        long silent = order.get(2);
        ring.answered(ring.epoch(), silent, new DetectorConfigReply(Outcome.NO_ANSWER, "timed out"));
        assertThat(ring.unconfirmedAnswers()).isEqualTo(1);
        ring.answered(ring.epoch(), order.get(3), new DetectorConfigReply(Outcome.NO_ANSWER, "closed"));
        ring.answered(ring.epoch(), order.get(3), new DetectorConfigReply(Outcome.NO_ANSWER, "timed out again"));
        assertThat(ring.unconfirmedAnswers()).as("counted once").isEqualTo(2);
        ring.plan(order, from, event -> { });
        assertThat(ring.unconfirmedAnswers()).isZero();
        assertThat(ring.awaitingAnswers()).isEqualTo(SWITCHES);
    }

    @Test
    void switchesBehindOneAddressEachWithItsOwnPortAreMembersAndASharedEndpointIsLeftOut() throws Exception {
        ring.close();
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        Map<Long, InetSocketAddress> endpoints = new HashMap<>();
        for (int i = 0; i < 5; i++) {
            endpoints.put(0x2000L + i, new InetSocketAddress(lo, 20_000 + i)); // one simulator: one address, five ports
        }
        endpoints.put(0x2005L, new InetSocketAddress(lo, 20_002)); // claims switch 0x2002's endpoint
        List<Long> all = List.of(0x2000L, 0x2001L, 0x2002L, 0x2003L, 0x2004L, 0x2005L);
        List<Long> members = ring.plan(all, endpoints, event -> { });
        assertThat(members).containsExactly(0x2000L, 0x2001L, 0x2002L, 0x2003L, 0x2004L);
        assertThat(ring.size()).isEqualTo(6);
        assertThat(ring.unwatchedSwitches()).containsOnlyKeys(0x2005L);
        assertThat(ring.unwatchedSwitches().get(0x2005L)).contains("0x0000000000002002");
        Message.DetectorMember third = ring.configFor(0x2002L, false).get(0).members().get(3);
        assertThat(third.guid()).isEqualTo(0x2002L);
        assertThat(third.port()).isEqualTo(20_002);
    }

    @Test
    void incarnationsComeFromTheDaemonsMemberView() {
        assertThat(ring.incarnation(order.get(0))).isZero();
        assertThat(ring.incarnation(0x9999L)).as("not a member").isEqualTo(-1);
        ring.close();
        assertThat(ring.incarnation(order.get(0))).as("no ring").isEqualTo(-1);
    }
}
