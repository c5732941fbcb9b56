package org.fabricmanager.daemon.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import java.util.zip.GZIPOutputStream;
import org.fabricmanager.routing.ForwardingTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged state files of each kind (truncated, garbage, huge lengths, wrong checksum, generated
 * damage with printed seeds): every one is a {@link StoreException} naming the file, or loads exactly
 * what was saved; none allocates what the file merely claims, and none renumbers nodes silently.
 */
class StateFileDamageTest {
    @TempDir
    Path dir;

    private DestinationIndexMap indexMap(int nodes) {
        DestinationIndexMap map = new DestinationIndexMap();
        long[] guids = new long[nodes];
        for (int i = 0; i < nodes; i++) {
            guids[i] = 0x2000000000000000L + i;
        }
        map.assign(guids);
        return map;
    }

    private RoutingState routing(int switches, int destinations, long seed) {
        long[] guids = new long[switches];
        for (int s = 0; s < switches; s++) {
            guids[s] = 0x1000000100000000L + s;
        }
        ForwardingTables.Builder b = ForwardingTables.builder(guids, destinations);
        Random r = new Random(seed);
        for (int s = 0; s < switches; s++) {
            for (int d = 0; d < destinations; d++) {
                b.set(s, d, 1 + r.nextInt(36));
            }
        }
        return new RoutingState("f".repeat(64), 3, "dmodc", b.build());
    }

    @Test
    void guid2indexTruncatedAtALineBoundaryIsAnErrorNotARenumbering() throws Exception {
        IndexMapStore store = new IndexMapStore(dir);
        store.save(indexMap(100));
        String text = Files.readString(store.file());
        String cut = text.substring(0, text.lastIndexOf('\n', text.length() - 2) + 1); // drop the last line
        Files.writeString(store.file(), cut);
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("guid2index")
                .hasMessageContaining("99 entries but the header says 100").hasMessageContaining("restore it from a backup");
    }

    @Test
    void guid2indexWithAChangedEntryFailsItsChecksum() throws Exception {
        IndexMapStore store = new IndexMapStore(dir);
        store.save(indexMap(10));
        String text = Files.readString(store.file()).replace("0x2000000000000003 3", "0x2000000000000003 13");
        Files.writeString(store.file(), text);
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("checksum");
    }

    @Test
    void guid2indexGarbageHugeLinesAndHugeCountsAreBoundedErrors() throws Exception {
        IndexMapStore store = new IndexMapStore(dir);
        Files.write(store.file(), new byte[]{0, 1, 2, 3, (byte) 0xff, '\n'});
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("line 1");
        // 32 MB without a line feed: refused at 256 bytes, not read into one string
        try (OutputStream out = Files.newOutputStream(store.file())) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 32; i++) {
                out.write(zeros);
            }
        }
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("longer than 256 bytes");
        Files.writeString(store.file(), "guid2index/2 entries=999999999 crc32c=00000000\n");
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("more than the 16777216");
        Files.writeString(store.file(), "guid2index/2 entries=1 crc32c=00000000\n0x2000000000000000 2147483647\n");
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("beyond the largest table");
        Files.writeString(store.file(), "");
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("empty file");
    }

    @Test
    void guid2indexWithAnIndexTooSparseForRoutingIsRefusedAtLoad() throws Exception {
        IndexMapStore store = new IndexMapStore(dir);
        DestinationIndexMap hostile = indexMap(3);
        hostile.put(0x2000000000000099L, 16_777_215); // accepted by the format, never by routing
        store.save(hostile);
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("guid2index")
                .hasMessageContaining("index 16777215 is too sparse for its 4 entries")
                .hasMessageContaining("below 4112");
        store.save(indexMap(5_000));
        assertThat(store.load().size()).as("a file the daemon wrote").isEqualTo(5_000);
    }

    @Test
    void guid2indexOfTheFirstFormatIsReadAndRewrittenWithAChecksum() throws Exception {
        IndexMapStore store = new IndexMapStore(dir);
        Files.writeString(store.file(), "# fabric-manager destination indices (guid2index/1): <node GUID> <index>\n"
                + "0x2000000000000000 0\n0x2000000000000001 1\n");
        assertThat(store.load().size()).isEqualTo(2);
        assertThat(Files.readString(store.file())).startsWith("guid2index/2 entries=2 crc32c=");
        assertThat(store.load().indexOf(0x2000000000000001L)).isEqualTo(1);
    }

    @Test
    void guid2indexGeneratedDamageNeverLoadsSomethingElse() throws Exception {
        IndexMapStore store = new IndexMapStore(dir);
        DestinationIndexMap saved = indexMap(300);
        store.save(saved);
        byte[] good = Files.readAllBytes(store.file());
        for (long seed = 1; seed <= 300; seed++) {
            byte[] bad = damage(good, new Random(seed));
            Files.write(store.file(), bad);
            try {
                assertThat(store.load().asMap()).as("seed %d", seed).isEqualTo(saved.asMap());
            } catch (StoreException e) {
                assertThat(e.getMessage()).as("seed %d", seed).contains("guid2index");
            }
        }
    }

    @Test
    void routingStateTruncationsGarbageAndWrongChecksumsAreErrors() throws Exception {
        RoutingStateStore store = new RoutingStateStore(dir);
        store.save(routing(8, 700, 1));
        byte[] good = Files.readAllBytes(store.file());
        for (int cut : new int[]{0, 3, 20, 31, 32, 40, good.length / 2, good.length - 1}) {
            Files.write(store.file(), Arrays.copyOf(good, cut));
            assertThatThrownBy(store::load).as("cut at %d", cut).isInstanceOf(StoreException.class)
                    .hasMessageContaining("routing.state");
        }
        byte[] flipped = good.clone();
        flipped[good.length / 2] ^= 0x01;
        Files.write(store.file(), flipped);
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("CRC-32C");
        Files.write(store.file(), garbage(4096, 5));
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("not a fabric-manager");
    }

    @Test
    void routingStateClaimingHugeSizesIsRefusedBeforeAllocation() throws Exception {
        RoutingStateStore store = new RoutingStateStore(dir);
        // a header claiming 2^40 uncompressed bytes from a few compressed ones: beyond deflate's ratio
        Files.write(store.file(), withHeader(gzip(new byte[64]), 1L << 40));
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("cannot be compressed");
        // a consistent header and body whose sizes add up, but far beyond the heap this daemon allows
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(plain);
        out.writeShort(0);
        out.writeLong(1);
        out.writeShort(0);
        out.writeInt(1 << 20);
        out.writeInt(1 << 24);
        byte[] body = gzip(plain.toByteArray());
        long claimed = 2 + 8 + 2 + 4 + 4 + (1L << 20) * 8 + (1L << 20) * (1L << 24);
        Files.write(store.file(), withHeader(body, claimed));
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("cannot be compressed");
        // sizes inside deflate's ratio and the heap, but table dimensions that do not add up to them
        RoutingStateStore small = new RoutingStateStore(dir, 1 << 20);
        Files.write(store.file(), withHeader(body, 1000));
        assertThatThrownBy(small::load).isInstanceOf(StoreException.class).hasMessageContaining("the header announces 1000");
        RoutingStateStore tiny = new RoutingStateStore(dir, 100);
        Files.write(store.file(), withHeader(body, 1000));
        assertThatThrownBy(tiny::load).isInstanceOf(StoreException.class).hasMessageContaining("raise -Xmx");
    }

    @Test
    void routingStateOfTheFirstFormatIsRecomputed() throws Exception {
        RoutingStateStore store = new RoutingStateStore(dir);
        Files.write(store.file(), gzip("FMRS".getBytes(StandardCharsets.US_ASCII)));
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("format 1");
    }

    @Test
    void routingStateGeneratedDamageNeverLoadsSomethingElse() throws Exception {
        RoutingStateStore store = new RoutingStateStore(dir);
        RoutingState saved = routing(5, 130, 2);
        store.save(saved);
        byte[] good = Files.readAllBytes(store.file());
        for (long seed = 1; seed <= 300; seed++) {
            Files.write(store.file(), damage(good, new Random(seed)));
            try {
                RoutingState back = store.load().orElseThrow();
                assertThat(back.tables().sameAs(saved.tables())).as("seed %d", seed).isTrue();
                assertThat(back.version()).as("seed %d", seed).isEqualTo(saved.version());
            } catch (StoreException e) {
                assertThat(e.getMessage()).as("seed %d", seed).contains("routing.state");
            }
        }
    }

    /** One random damage: a flipped byte, a cut, garbage appended, or a run of bytes overwritten. */
    private static byte[] damage(byte[] good, Random r) {
        byte[] b = good.clone();
        switch (r.nextInt(4)) {
            case 0 -> b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
            case 1 -> b = Arrays.copyOf(b, r.nextInt(b.length));
            case 2 -> {
                byte[] tail = garbage(1 + r.nextInt(64), r.nextLong());
                b = Arrays.copyOf(b, b.length + tail.length);
                System.arraycopy(tail, 0, b, good.length, tail.length);
            }
            default -> {
                int at = r.nextInt(b.length);
                byte[] junk = garbage(Math.min(16, b.length - at), r.nextLong());
                System.arraycopy(junk, 0, b, at, junk.length);
            }
        }
        return b;
    }

    private static byte[] garbage(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] gzip(byte[] plain) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
            gz.write(plain);
        }
        return bytes.toByteArray();
    }

    private static byte[] withHeader(byte[] body, long plainBytes) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        ByteBuffer b = ByteBuffer.allocate(RoutingStateStore.HEADER_BYTES + body.length);
        b.putInt(RoutingStateStore.MAGIC).putShort((short) RoutingStateStore.FORMAT).putShort((short) 0)
                .putLong(body.length).putLong(plainBytes).putInt((int) crc.getValue()).putInt(0).put(body);
        return b.array();
    }
}
