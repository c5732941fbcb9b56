package org.fabricmanager.daemon.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreTest {
    @TempDir
    Path dir;

    @Test
    void newNodesTakeTheLowestFreeIndicesAndExistingOnesNeverMove() {
        DestinationIndexMap map = new DestinationIndexMap();
        map.put(100, 0);
        map.put(101, 2);
        map.put(102, 5);
        int assigned = map.assign(new long[] {103, 101, 104, 105, 106});
        assertThat(assigned).isEqualTo(4);
        assertThat(map.indexOf(101)).isEqualTo(2);
        assertThat(map.indexOf(103)).isEqualTo(1);
        assertThat(map.indexOf(104)).isEqualTo(3);
        assertThat(map.indexOf(105)).isEqualTo(4);
        assertThat(map.indexOf(106)).isEqualTo(6);
        assertThat(map.indexOf(999)).isEqualTo(-1);
    }

    @Test
    void indexMapSurvivesSaveAndLoad() throws Exception {
        IndexMapStore store = new IndexMapStore(dir);
        assertThat(store.load().size()).isZero();
        DestinationIndexMap map = new DestinationIndexMap();
        Random r = new Random(5);
        List<Long> guids = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            guids.add(0x2000000000000000L + r.nextInt(1 << 30));
        }
        map.assign(guids.stream().distinct().mapToLong(Long::longValue).toArray());
        store.save(map);
        assertThat(store.load().asMap()).isEqualTo(map.asMap());
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly(IndexMapStore.FILE);
        }
    }

    @Test
    void badIndexFileNamesTheLine() throws Exception {
        Files.writeString(dir.resolve(IndexMapStore.FILE),
                "guid2index/2 entries=2 crc32c=00000000\n# c\n0x2000000000000000 0\n0x2000000000000001 0\n");
        assertThatThrownBy(() -> new IndexMapStore(dir).load()).isInstanceOf(StoreException.class)
                .hasMessageContaining("guid2index:4").hasMessageContaining("index 0 is already used");
        Files.writeString(dir.resolve(IndexMapStore.FILE), "guid2index/2 entries=1 crc32c=00000000\n0x20 0\n");
        assertThatThrownBy(() -> new IndexMapStore(dir).load()).hasMessageContaining(":2: bad GUID");
    }

    @Test
    void routingStateRoundTripsAndDamageIsDetected() throws Exception {
        long[] guids = {0x10L, 0x11L, 0x12L};
        ForwardingTables.Builder b = ForwardingTables.builder(guids, 300);
        Random r = new Random(9);
        for (int s = 0; s < 3; s++) {
            for (int d = 0; d < 300; d++) {
                b.set(s, d, 1 + r.nextInt(36));
            }
        }
        ForwardingTables tables = b.build();
        RoutingStateStore store = new RoutingStateStore(dir);
        assertThat(store.load()).isEmpty();
        store.save(new RoutingState("abc", 7, "dmodc", tables));
        RoutingState back = store.load().orElseThrow();
        assertThat(back.fingerprint()).isEqualTo("abc");
        assertThat(back.version()).isEqualTo(7);
        assertThat(back.engine()).isEqualTo("dmodc");
        assertThat(back.tables().sameAs(tables)).isTrue();

        byte[] bytes = Files.readAllBytes(store.file());
        // a write abandoned before its last table (a newer routing came) leaves the file as it was
        int[] asked = {0};
        assertThat(store.save(new RoutingState("def", 8, "dmodc", tables), () -> ++asked[0] == 3)).isFalse();
        assertThat(Files.readAllBytes(store.file())).isEqualTo(bytes);
        assertThat(store.save(new RoutingState("def", 8, "dmodc", tables), () -> false)).isTrue();
        assertThat(store.load().orElseThrow().version()).isEqualTo(8);
        store.save(new RoutingState("abc", 7, "dmodc", tables));
        assertThat(Files.readAllBytes(store.file())).isEqualTo(bytes);
        Files.write(store.file(), java.util.Arrays.copyOf(bytes, bytes.length - 6));
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("routing.state");
        bytes[bytes.length - 5] ^= 0x55; // the gzip trailer's length/CRC
        Files.write(store.file(), bytes);
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("CRC-32C");
        Files.writeString(store.file(), "not gzip");
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class);
    }

    @Test
    void fingerprintIgnoresOrderAndNamesButNotRoutingInputs() {
        Fabric f = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,2;1,1)"));
        String fp = FabricFingerprint.of(f, "dmodc");
        List<FabricSwitch> switches = new ArrayList<>();
        for (FabricSwitch s : f.switches()) {
            switches.add(new FabricSwitch(s.guid(), s.name() + "-renamed", s.ports()));
        }
        Collections.reverse(switches);
        List<Link> links = new ArrayList<>();
        for (Link l : f.links()) {
            links.add(new Link(l.b(), l.bPort(), l.a(), l.aPort()));
        }
        Collections.shuffle(links, new Random(1));
        Fabric same = new Fabric(null, switches, f.nodes(), links);
        assertThat(FabricFingerprint.of(same, "dmodc")).isEqualTo(fp);

        assertThat(FabricFingerprint.of(f, "minhop")).isNotEqualTo(fp);
        assertThat(FabricFingerprint.of(f.withoutLinks(List.of(f.links().get(f.links().size() - 1))), "dmodc")).isNotEqualTo(fp);
        List<EndNode> nodes = new ArrayList<>(f.nodes());
        EndNode n0 = nodes.get(0);
        nodes.set(0, new EndNode(n0.guid(), n0.name(), 1000));
        assertThat(FabricFingerprint.of(new Fabric(null, f.switches(), nodes, f.links()), "dmodc")).isNotEqualTo(fp);
    }
}
