package org.fabricmanager.agent.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.fabricmanager.agent.TestTables;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

/**
 * What the Linux agent derives without a kernel: the destination MAC and address mapping, the cabling file, the
 * kernel's FDB and link JSON read into tables and port records, and the batch that turns one table into another.
 */
class LinuxTablesTest {
    @Test
    void destinationMacsAreFixedAndReversible() {
        assertThat(DestinationAddresses.mac(0)).isEqualTo("02:66:6d:00:00:00");
        assertThat(DestinationAddresses.mac(300)).isEqualTo("02:66:6d:00:01:2c");
        assertThat(DestinationAddresses.ipv4(0)).isEqualTo("10.0.0.1");
        assertThat(DestinationAddresses.ipv4(300)).isEqualTo("10.0.1.45");
        for (int i : new int[]{0, 1, 63, 64, 255, 256, 65535, 1 << 20}) {
            assertThat(DestinationAddresses.index(DestinationAddresses.mac(i))).as("index %d", i).isEqualTo(i);
        }
        assertThat(DestinationAddresses.index("82:59:02:cd:6f:7e")).isEqualTo(-1);
        assertThat(DestinationAddresses.index("02:66:6d:zz:00:00")).isEqualTo(-1);
        assertThatThrownBy(() -> DestinationAddresses.mac(-1)).hasMessageContaining("-1");
    }

    @Test
    void theCablingFileOfAFabricGivesEverySwitchPortItsNeighbour() throws IOException {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
        Cabling cabling = Cabling.parse("lab", Cabling.lines(fabric));
        for (var l : fabric.links()) {
            if (fabric.isSwitch(l.a())) {
                PortRecord r = cabling.up(l.a(), l.aPort());
                assertThat(r.peerGuid()).isEqualTo(l.b());
                assertThat(r.peerKind()).isEqualTo(fabric.isSwitch(l.b()) ? PortRecord.PeerKind.SWITCH : PortRecord.PeerKind.NODE);
                if (fabric.isSwitch(l.b())) {
                    assertThat(r.peerPort()).isEqualTo(l.bPort());
                }
            }
        }
        assertThat(cabling.up(0x42L, 1)).isEqualTo(PortRecord.upWithoutPeer(1));
    }

    @Test
    void aBadCablingLineIsRefusedWithItsLine() {
        assertThatThrownBy(() -> Cabling.parse("c.txt", List.of("# x", "0x0000000000000001 1 node 0x0000000000000002",
                "0x0000000000000001 1 node 0x0000000000000003"))).hasMessage("c.txt:3: cables the same switch port as line 2");
        assertThatThrownBy(() -> Cabling.parse("c.txt", List.of("0x0000000000000001 300 node 0x0000000000000002")))
                .hasMessage("c.txt:1: PORT (field 2) is not a number in [1, 254]");
        assertThatThrownBy(() -> Cabling.parse("c.txt", List.of("0x0000000000000001 1 cable 0x0000000000000002")))
                .hasMessageContaining("c.txt:1");
    }

    @Test
    void theBatchReplacesChangedEntriesAndDeletesEntriesWithoutRoute() throws IOException {
        BridgeFdbPlane plane = new BridgeFdbPlane(new Iproute2("x"), "br0", new PortNames("p", 4));
        int[] kernel = plane.parse("""
                [{"mac":"33:33:00:00:00:01","ifname":"br0","flags":["self"],"state":"permanent"},
                 {"mac":"02:66:6d:00:00:00","ifname":"p1","flags":[],"master":"br0","state":"static"},
                 {"mac":"02:66:6d:00:00:01","ifname":"p2","flags":[],"master":"br0","state":"static"},
                 {"mac":"02:66:6d:00:00:03","ifname":"p4","flags":[],"master":"br0","state":"static"},
                 {"mac":"82:59:02:cd:6f:7e","ifname":"p1","flags":[],"master":"br0","state":"permanent"}]""");
        assertThat(kernel).containsExactly(1, 2, 255, 4);
        var next = TestTables.table(3, new byte[]{1, 3, 2});
        assertThat(plane.changes(kernel, next)).containsExactly(
                "fdb replace 02:66:6d:00:00:01 dev p3 master static",
                "fdb replace 02:66:6d:00:00:02 dev p2 master static",
                "fdb del 02:66:6d:00:00:03 dev p4 master");
        var same = TestTables.table(4, new byte[]{1, 2, (byte) 255, 4});
        assertThat(plane.changes(kernel, same)).isEmpty();
    }

    @Test
    void aPortIsUpOnlyWhenAdministrativelyUpWithCarrier() throws IOException {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
        long guid = fabric.switches().get(0).guid();
        KernelPorts ports = new KernelPorts(new Iproute2("x"), new PortNames("p", 3),
                Cabling.parse("lab", Cabling.lines(fabric)), guid);
        List<PortRecord> records = ports.parse("""
                [{"ifname":"lo","flags":["LOOPBACK"]},
                 {"ifname":"p1","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"]},
                 {"ifname":"p2","flags":["NO-CARRIER","BROADCAST","MULTICAST","UP"]},
                 {"ifname":"p3","flags":["BROADCAST","MULTICAST"]}]""");
        assertThat(records).hasSize(3);
        assertThat(records.get(0).isUp()).isTrue();
        assertThat(records.get(0).peerGuid()).isNotZero();
        assertThat(records.get(1)).isEqualTo(PortRecord.down(2));
        assertThat(records.get(2)).isEqualTo(PortRecord.down(3));
    }

    @Test
    void eachLineOfTheLinkMonitorGivesItsPortsRecordWithoutReadingTheKernelAgain() throws IOException {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
        long guid = fabric.switches().get(0).guid();
        KernelPorts ports = new KernelPorts(new Iproute2("x"), new PortNames("p", 9),
                Cabling.parse("lab", Cabling.lines(fabric)), guid);
        // lines as ip -o monitor link prints them (link and bridge-port messages; a link up before its carrier)
        PortRecord down = ports.event("9: p8@if2: <BROADCAST,MULTICAST> mtu 1500 qdisc noqueue master br0 state DOWN "
                + "group default \\    link/ether 36:50:11:53:20:b6 brd ff:ff:ff:ff:ff:ff link-netns lab-s2");
        assertThat(down).isEqualTo(PortRecord.down(8));
        assertThat(ports.event("9: p8@p1: <NO-CARRIER,BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 master br0 state DOWN"))
                .as("up without carrier").isEqualTo(PortRecord.down(8));
        PortRecord up = ports.event("3: p2@p1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 master br0 state UP \\    "
                + "link/ether 36:50:11:53:20:b6");
        assertThat(up.isUp()).isTrue();
        assertThat(up).isEqualTo(Cabling.parse("lab", Cabling.lines(fabric)).up(guid, 2));
        assertThat(ports.event("Deleted 3: p2@if7: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 master br0 state UP"))
                .as("a deleted link").isEqualTo(PortRecord.down(2));
        assertThat(ports.event("1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN")).isNull();
        assertThat(ports.event("12: br0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 state UP")).isNull();
        assertThat(ports.event("    link/ether 36:50:11:53:20:b6 brd ff:ff:ff:ff:ff:ff")).isNull();
        assertThat(ports.event("10: p10: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500")).as("not a port of 9").isNull();
    }
}
