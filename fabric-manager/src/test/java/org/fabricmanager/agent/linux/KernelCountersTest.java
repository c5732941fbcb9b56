package org.fabricmanager.agent.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.Test;

/** The Linux switch's counters from {@code ip -s -j link show} as iproute2 6.1 prints it (captured). */
class KernelCountersTest {
    /** A switch namespace: the bridge, two ports (p1 with errors), p3 missing, and loopback. */
    static final String CAPTURED = """
            [{"ifindex":1,"ifname":"lo","flags":["LOOPBACK","UP","LOWER_UP"],"mtu":65536,"qdisc":"noqueue","operstate":"UNKNOWN","linkmode":"DEFAULT","group":"default","txqlen":1000,"link_type":"loopback","address":"00:00:00:00:00:00","broadcast":"00:00:00:00:00:00","stats64":{"rx":{"bytes":0,"packets":0,"errors":0,"dropped":0,"over_errors":0,"multicast":0},"tx":{"bytes":0,"packets":0,"errors":0,"dropped":0,"carrier_errors":0,"collisions":0}}},\
            {"ifindex":2,"ifname":"br0","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":1500,"qdisc":"noqueue","operstate":"UP","linkmode":"DEFAULT","group":"default","txqlen":1000,"link_type":"ether","address":"4e:6f:1a:00:00:01","broadcast":"ff:ff:ff:ff:ff:ff","stats64":{"rx":{"bytes":812,"packets":9,"errors":0,"dropped":0,"over_errors":0,"multicast":0},"tx":{"bytes":0,"packets":0,"errors":0,"dropped":0,"carrier_errors":0,"collisions":0}}},\
            {"ifindex":5,"link_index":4,"ifname":"p1","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":1500,"qdisc":"noqueue","master":"br0","operstate":"UP","linkmode":"DEFAULT","group":"default","txqlen":1000,"link_type":"ether","address":"4e:6f:1a:00:01:01","broadcast":"ff:ff:ff:ff:ff:ff","link_netnsid":0,"stats64":{"rx":{"bytes":123456789,"packets":98765,"errors":3,"dropped":7,"over_errors":0,"multicast":12},"tx":{"bytes":23456789,"packets":8765,"errors":1,"dropped":2,"carrier_errors":0,"collisions":0}}},\
            {"ifindex":7,"link_index":6,"ifname":"p2","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":1500,"qdisc":"noqueue","master":"br0","operstate":"UP","linkmode":"DEFAULT","group":"default","txqlen":1000,"link_type":"ether","address":"4e:6f:1a:00:01:02","broadcast":"ff:ff:ff:ff:ff:ff","link_netnsid":0,"stats64":{"rx":{"bytes":18446744073709551615,"packets":5,"errors":0,"dropped":0,"over_errors":0,"multicast":0},"tx":{"bytes":640,"packets":6,"errors":0,"dropped":0,"carrier_errors":0,"collisions":0}}}]
            """;

    @Test
    void portsAreReadFromTheirInterfacesStatistics() throws IOException {
        PortNames names = new PortNames("p", 3);
        PortCounters c = new PortCounters(1, KernelCounters.parse(CAPTURED, names));
        assertThat(c.get(1, PortCounter.RX_PACKETS)).isEqualTo(98_765);
        assertThat(c.get(1, PortCounter.TX_PACKETS)).isEqualTo(8_765);
        assertThat(c.get(1, PortCounter.RX_BYTES)).isEqualTo(123_456_789);
        assertThat(c.get(1, PortCounter.TX_BYTES)).isEqualTo(23_456_789);
        assertThat(c.get(1, PortCounter.RX_ERRORS)).isEqualTo(3);
        assertThat(c.get(1, PortCounter.TX_ERRORS)).isEqualTo(1);
        assertThat(c.get(1, PortCounter.RX_DROPS)).isEqualTo(7);
        assertThat(c.get(1, PortCounter.TX_DROPS)).isEqualTo(2);
        // unsigned 64-bit: the largest value comes through as all ones
        assertThat(c.get(2, PortCounter.RX_BYTES)).isEqualTo(-1L);
        assertThat(c.get(2, PortCounter.TX_BYTES)).isEqualTo(640);
        for (PortCounter k : PortCounter.ALL) {
            assertThat(c.get(3, k)).as("p3 has no interface: %s", k).isEqualTo(PortCounters.UNAVAILABLE);
        }
    }

    @Test
    void olderIproute2WithoutStats64IsReadToo() throws IOException {
        String old = CAPTURED.replace("\"stats64\"", "\"stats\"");
        assertThat(new PortCounters(1, KernelCounters.parse(old, new PortNames("p", 2))).get(1, PortCounter.RX_ERRORS))
                .isEqualTo(3);
    }

    @Test
    void outputThatIsNotTheLinkListIsAnError() {
        PortNames names = new PortNames("p", 2);
        assertThatThrownBy(() -> KernelCounters.parse("Cannot open network namespace \"sw1\"", names))
                .isInstanceOf(IOException.class).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> KernelCounters.parse("{\"ifname\":\"p1\"}", names))
                .isInstanceOf(IOException.class).hasMessageContaining("array");
    }

    /**
     * The daemon asks every switch every ten seconds: reads go to one long-running ip process, not a process each
     * (a lab of 320 switches otherwise started 32 processes a second). Reads the links of this process's own
     * namespace, which needs no privilege.
     */
    @Test
    void readsShareOneIpProcess() throws IOException {
        RealParts.require(BatchSession.stdbuf() != null, "stdbuf is not installed (Debian: coreutils)");
        RealParts.require(Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip"))
                || Files.isExecutable(Path.of("/usr/bin/ip")), "ip is not installed (Debian: iproute2)");
        AtomicLong nanos = new AtomicLong();
        try (KernelCounters counters = new KernelCounters(new Iproute2(""), new PortNames("fmnoport", 2), nanos::get)) {
            for (int i = 0; i < 3; i++) {
                nanos.addAndGet((KernelCounters.REUSE_MS + 1) * 1_000_000);
                PortCounters c = counters.read(1, 2);
                // no interface is called fmnoport1: read, and unavailable
                assertThat(c.get(1, PortCounter.RX_PACKETS)).isEqualTo(PortCounters.UNAVAILABLE);
            }
            assertThat(counters.processesStarted()).isEqualTo(1);
        }
    }

    @Test
    void aNamespaceThatIsGoneIsAnErrorNamingIt() {
        RealParts.require(BatchSession.stdbuf() != null, "stdbuf is not installed (Debian: coreutils)");
        try (KernelCounters counters = new KernelCounters(new Iproute2("fm-no-such-namespace"), new PortNames("p", 2),
                System::nanoTime)) {
            assertThatThrownBy(() -> counters.read(1, 2)).isInstanceOf(IOException.class)
                    .hasMessageContaining("fm-no-such-namespace");
        }
    }
}
