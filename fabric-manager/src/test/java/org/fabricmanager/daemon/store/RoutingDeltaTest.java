package org.fabricmanager.daemon.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.fabricmanager.routing.ForwardingTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code routing.delta}: the routing in force written as its changes since {@code routing.state}, read back on top of
 * it; one left from before the last whole write, or damaged, leaves the stored routing as it is.
 */
class RoutingDeltaTest {
    /** Four blocks and a short last one (64 x 4 + 20 entries). */
    private static final int LENGTH = 276;

    @TempDir
    Path dir;

    private static ForwardingTables tables(long[] guids, int length, long seed) {
        Random random = new Random(seed);
        byte[][] rows = new byte[guids.length][length];
        for (byte[] row : rows) {
            for (int d = 0; d < length; d++) {
                row[d] = (byte) (1 + random.nextInt(36));
            }
        }
        return ForwardingTables.ofRows(guids, rows, length);
    }

    /** {@code t} with entry {@code d} of row {@code s} set to {@code port}; the other rows are shared. */
    private static ForwardingTables with(ForwardingTables t, int s, int d, int port) {
        byte[][] rows = new byte[t.switchCount()][];
        int[] reuse = new int[t.switchCount()];
        long[] guids = new long[t.switchCount()];
        for (int i = 0; i < rows.length; i++) {
            guids[i] = t.switchGuid(i);
            reuse[i] = i == s ? -1 : i;
        }
        rows[s] = t.copyRow(s);
        rows[s][d] = (byte) port;
        return ForwardingTables.ofRows(guids, rows, t.destinationCount(), t, reuse);
    }

    @Test
    void theRoutingInForceIsReadAsTheStoredOneAndItsChanges() throws Exception {
        ForwardingTables base = tables(new long[] {10, 20, 30, 40}, LENGTH, 1);
        RoutingStateStore store = new RoutingStateStore(dir);
        assertThat(store.saveChanges(new RoutingState("f1", 1, "dmodc", base))).as("nothing stored yet: whole").isTrue();
        assertThat(Files.exists(dir.resolve(RoutingStateStore.DELTA_FILE))).isFalse();
        assertThat(new RoutingStateStore(dir).load().orElseThrow().version()).isEqualTo(1);
        // the first block of one row, the short last block of another, a row unchanged
        ForwardingTables two = with(with(base, 0, 3, 40), 2, LENGTH - 1, 41);
        assertThat(store.saveChanges(new RoutingState("f2", 2, "dmodc", two))).isTrue();
        assertThat(Files.size(dir.resolve(RoutingStateStore.DELTA_FILE))).as("two blocks, not four rows")
                .isLessThan(500);
        RoutingState read = new RoutingStateStore(dir).load().orElseThrow();
        assertThat(read.version()).isEqualTo(2);
        assertThat(read.fingerprint()).isEqualTo("f2");
        assertThat(read.engine()).isEqualTo("dmodc");
        assertThat(read.tables().sameAs(two)).isTrue();

        // a later routing: its changes since the stored one (v1), not since v2
        ForwardingTables three = with(two, 1, 100, 42);
        store.saveChanges(new RoutingState("f3", 3, "dmodc", three));
        assertThat(new RoutingStateStore(dir).load().orElseThrow().tables().sameAs(three)).isTrue();

        // the whole tables written: the delta names v1, and is not applied to v3
        store.save(new RoutingState("f3", 3, "dmodc", three));
        RoutingState whole = new RoutingStateStore(dir).load().orElseThrow();
        assertThat(whole.version()).isEqualTo(3);
        assertThat(whole.tables().sameAs(three)).isTrue();
        assertThat(store.saveChanges(new RoutingState("f3", 3, "dmodc", three))).as("not newer").isFalse();
    }

    @Test
    void switchesGoneOrNewAndAnotherLengthTakeWholeRows() {
        RoutingStateStore store = new RoutingStateStore(dir);
        ForwardingTables base = tables(new long[] {10, 20, 30}, LENGTH, 2);
        store.save(new RoutingState("f1", 1, "dmodc", base));
        ForwardingTables other = tables(new long[] {10, 30, 50}, LENGTH, 3); // 20 gone, 50 new
        store.saveChanges(new RoutingState("f2", 2, "dmodc", other));
        assertThat(new RoutingStateStore(dir).load().orElseThrow().tables().sameAs(other)).isTrue();
        ForwardingTables longer = tables(new long[] {10, 20, 30}, LENGTH + 64, 4);
        store.saveChanges(new RoutingState("f3", 3, "dmodc", longer));
        assertThat(new RoutingStateStore(dir).load().orElseThrow().tables().sameAs(longer)).isTrue();
    }

    @Test
    void aDamagedOrHostileDeltaLeavesTheStoredRouting() throws Exception {
        RoutingStateStore store = new RoutingStateStore(dir);
        ForwardingTables base = tables(new long[] {10, 20}, LENGTH, 5);
        store.save(new RoutingState("f1", 1, "dmodc", base));
        store.saveChanges(new RoutingState("f2", 2, "dmodc", with(base, 1, 7, 9)));
        Path delta = dir.resolve(RoutingStateStore.DELTA_FILE);
        byte[] good = Files.readAllBytes(delta);
        byte[] flipped = good.clone();
        flipped[flipped.length - 5] ^= 1;
        int baseCrc = ByteBuffer.wrap(Files.readAllBytes(dir.resolve(RoutingStateStore.FILE)), 24, 4).getInt();
        byte[][] hostile = {
            flipped,
            Arrays.copyOf(good, good.length - 3),
            Arrays.copyOf(good, 10),
            // a header that claims terabytes once uncompressed
            ByteBuffer.allocate(good.length).put(good).putLong(16, 1L << 40).array(),
            // a block beyond the table, two blocks out of order, more blocks than a row has, a switch not stored
            body(baseCrc, new long[] {10, 20}, 1, 5),
            body(baseCrc, new long[] {10, 20}, 2, 2, 1),
            body(baseCrc, new long[] {10, 20}, 6, 0, 1, 2, 3, 4, 5),
            body(baseCrc, new long[] {10, 99}, 1, 0),
        };
        for (byte[] content : hostile) {
            Files.write(delta, content);
            RoutingState read = new RoutingStateStore(dir).load().orElseThrow();
            assertThat(read.version()).as("%d bytes", content.length).isEqualTo(1);
            assertThat(read.tables().sameAs(base)).isTrue();
        }
        Files.write(delta, good);
        assertThat(new RoutingStateStore(dir).load().orElseThrow().version()).as("the good one again").isEqualTo(2);
    }

    /**
     * A delta of version 2 on the stored routing (v1, {@code baseCrc}) for switches {@code guids}: the first row
     * unchanged, the second with {@code blocks[0]} changed blocks, at indices {@code blocks[1..]} (64 entries each).
     */
    private static byte[] body(int baseCrc, long[] guids, int... blocks) throws Exception {
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(plain);
        out.writeLong(1);
        out.writeInt(baseCrc);
        out.writeShort(2);
        out.writeBytes("f2");
        out.writeLong(2);
        out.writeShort(5);
        out.writeBytes("dmodc");
        out.writeInt(guids.length);
        out.writeInt(LENGTH);
        for (long g : guids) {
            out.writeLong(g);
        }
        out.writeInt(0);
        out.writeInt(blocks[0]);
        for (int i = 1; i < blocks.length; i++) {
            out.writeInt(blocks[i]);
            out.write(new byte[64]);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(body)) {
            gz.write(plain.toByteArray());
        }
        return FrameHeader.frame(RoutingDelta.MAGIC, RoutingDelta.FORMAT, body.toByteArray(), plain.size());
    }
}
