package org.fabricmanager.detector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Vacant slots' placeholders: one per slot, all in 0.0.0.0/8 and never 0.0.0.0 itself or port 0, and no real
 * member address (loopback, this workplace's own 192.0.2.0/24, a private network) is taken for one.
 */
class VacantAddressTest {
    @Test
    void everySlotHasItsOwnPlaceholderInThisNetwork() {
        Set<InetSocketAddress> seen = new HashSet<>();
        for (int i = 0; i < 200_000; i += 7) {
            InetSocketAddress a = VacantAddress.of(i);
            assertThat(VacantAddress.is(a)).as("slot %d: %s", i, a).isTrue();
            assertThat(a.getAddress().isAnyLocalAddress()).as("slot %d: %s", i, a).isFalse();
            assertThat(a.getPort()).as("slot %d", i).isBetween(1, 65_535);
            assertThat(seen.add(a)).as("slot %d: %s unique", i, a).isTrue();
        }
        assertThatThrownBy(() -> VacantAddress.of(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void realAddressesAreNotPlaceholders() {
        for (String host : new String[] {"127.0.0.1", "192.0.2.1", "10.1.2.3", "172.16.0.1", "::1"}) {
            assertThat(VacantAddress.is(new InetSocketAddress(host, 7684))).as(host).isFalse();
        }
        assertThat(VacantAddress.is(null)).isFalse();
    }
}
