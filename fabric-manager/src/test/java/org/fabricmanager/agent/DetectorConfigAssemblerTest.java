package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.DetectorConfig;
import org.fabricmanager.southbound.Message.DetectorMember;
import org.junit.jupiter.api.Test;

class DetectorConfigAssemblerTest {
    private static final byte[] KEY = new byte[Message.DetectorConfig.KEY_BYTES];

    private static List<DetectorMember> members(int from, int count) throws Exception {
        List<DetectorMember> list = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            list.add(new DetectorMember(100 + i, 1, InetAddress.getByName("127.0.0.1"), 9000 + i));
        }
        return list;
    }

    private static DetectorConfig chunk(long epoch, int start, int count, int n) throws Exception {
        return new DetectorConfig(1, epoch, 100, 500, 100, Message.Overlay.HYPERCUBE, Message.Transport.UDP,
                Message.StartMode.BOOTSTRAP, n, 3, start, members(start, count), KEY);
    }

    @Test
    void ringIsCompleteWhenEveryMemberArrivedInAnyOrder() throws Exception {
        DetectorConfigAssembler a = new DetectorConfigAssembler();
        assertThat(a.add(chunk(1, 5, 5, 10))).isEmpty();
        Optional<RingAssignment> ring = a.add(chunk(1, 0, 5, 10));
        assertThat(ring).isPresent();
        assertThat(ring.get().members()).extracting(org.fabricmanager.southbound.Message.DetectorPeer::guid).containsExactly(100L, 101L, 102L, 103L, 104L,
                105L, 106L, 107L, 108L, 109L);
        assertThat(ring.get().selfIndex()).isEqualTo(3);
    }

    @Test
    void aNewEpochDiscardsAPartialOne() throws Exception {
        DetectorConfigAssembler a = new DetectorConfigAssembler();
        assertThat(a.add(chunk(1, 0, 5, 10))).isEmpty();
        assertThat(a.add(chunk(2, 5, 5, 10))).isEmpty();
        assertThat(a.add(chunk(2, 0, 5, 10))).isPresent();
    }

    @Test
    void chunksThatDisagreeAreMalformed() throws Exception {
        DetectorConfigAssembler a = new DetectorConfigAssembler();
        a.add(chunk(1, 0, 5, 10));
        DetectorConfig other = new DetectorConfig(2, 1, 100, 600, 100, Message.Overlay.HYPERCUBE, Message.Transport.UDP,
                Message.StartMode.BOOTSTRAP, 10, 3, 5, members(5, 5), KEY);
        assertThatThrownBy(() -> a.add(other)).hasMessageContaining("disagrees");
    }

    @Test
    void chunksOfOneEpochMustCarryOneKeyAndTheRingGetsIt() throws Exception {
        DetectorConfigAssembler a = new DetectorConfigAssembler();
        a.add(chunk(1, 0, 5, 10));
        byte[] otherKey = KEY.clone();
        otherKey[31] = 1;
        DetectorConfig other = new DetectorConfig(2, 1, 100, 500, 100, Message.Overlay.HYPERCUBE, Message.Transport.UDP,
                Message.StartMode.BOOTSTRAP, 10, 3, 5, members(5, 5), otherKey);
        assertThatThrownBy(() -> a.add(other)).hasMessageContaining("disagrees");
        a.reset();
        a.add(chunk(1, 0, 5, 10));
        assertThat(a.add(chunk(1, 5, 5, 10)).orElseThrow().ringKey()).isEqualTo(KEY);
    }

    @Test
    void afterAResetTheSameEpochMayArriveWithAnotherStartMode() throws Exception {
        // a session cut in the middle of a BOOTSTRAP configuration; the reconnected member gets JOIN
        DetectorConfigAssembler a = new DetectorConfigAssembler();
        assertThat(a.add(chunk(1, 0, 5, 10))).isEmpty();
        a.reset();
        DetectorConfig join0 = new DetectorConfig(1, 1, 100, 500, 100, Message.Overlay.HYPERCUBE, Message.Transport.UDP,
                Message.StartMode.JOIN, 10, 3, 0, members(0, 5), KEY);
        DetectorConfig join5 = new DetectorConfig(2, 1, 100, 500, 100, Message.Overlay.HYPERCUBE, Message.Transport.UDP,
                Message.StartMode.JOIN, 10, 3, 5, members(5, 5), KEY);
        assertThat(a.add(join0)).isEmpty();
        Optional<RingAssignment> ring = a.add(join5);
        assertThat(ring).isPresent();
        assertThat(ring.get().startMode()).isEqualTo(Message.StartMode.JOIN);
        assertThat(ring.get().members()).hasSize(10);
    }
}
