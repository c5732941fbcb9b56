package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The replicated leader endpoints: what is written is read back; anything else reads as unknown. */
class LeaderEndpointsTest {
    @Test
    void roundTrips() {
        LeaderEndpoints e = new LeaderEndpoints("n2", 7, "mgmt2:7654", "https://mgmt2:7680");
        assertThat(LeaderEndpoints.decode(e.encode())).contains(e);
        LeaderEndpoints v6 = new LeaderEndpoints("n-3", 1, "[fd00::3]:7654", "http://[fd00::3]:7680");
        assertThat(LeaderEndpoints.decode(v6.encode())).contains(v6);
    }

    @Test
    void aGroupWithoutASouthboundAdvertisesRestAlone() {
        LeaderEndpoints e = new LeaderEndpoints("n2", 7, null, "https://mgmt2:7680");
        assertThat(new String(e.encode(), StandardCharsets.UTF_8)).doesNotContain("southbound");
        assertThat(LeaderEndpoints.decode(e.encode())).contains(e);
    }

    @Test
    void refusesWhatItCannotAdvertise() {
        assertThatThrownBy(() -> new LeaderEndpoints("n 2", 1, "a:1", "http://a:1")).hasMessageContaining("node id");
        assertThatThrownBy(() -> new LeaderEndpoints("n2", 0, "a:1", "http://a:1")).hasMessageContaining("term 0");
        assertThatThrownBy(() -> new LeaderEndpoints("n2", 1, "a", "http://a:1")).hasMessageContaining("HOST:PORT");
        assertThatThrownBy(() -> new LeaderEndpoints("n2", 1, "a:1", "ftp://a:1")).hasMessageContaining("rest");
    }

    @Test
    void damagedOrForeignContentReadsAsUnknown() {
        assertThat(LeaderEndpoints.decode(null)).isEmpty();
        assertThat(LeaderEndpoints.decode(new byte[LeaderEndpoints.MAX_BYTES + 1])).isEmpty();
        assertThat(LeaderEndpoints.decode("nodeId=n1\nterm=x\nsouthbound=a:1\nrest=http://a:1\n"
                .getBytes(StandardCharsets.UTF_8))).isEmpty();
        byte[] good = new LeaderEndpoints("n2", 7, "mgmt2:7654", "https://mgmt2:7680").encode();
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 2_000; i++) {
            byte[] damaged = good.clone();
            damaged[random.nextInt(damaged.length)] = (byte) random.nextInt(256);
            // a damaged byte either leaves valid endpoints or reads as unknown; it never throws
            LeaderEndpoints.decode(damaged).ifPresent(e -> assertThat(e.term()).as("seed %d", seed).isPositive());
        }
    }
}
