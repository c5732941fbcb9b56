package org.fabricmanager.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.TopologyException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lft-bin/1}: tables written and read back are the same entry by entry, whichever format they came from,
 * equal rows are stored once and shared when read, and damaged files are refused with the file named.
 */
class LftBinaryTest {
    @TempDir
    Path dir;

    @Test
    void tablesComeBackEqualAndEqualRowsAreStoredOnce() throws IOException {
        for (String spec : TestFabrics.MEDIUM_SPECS) {
            ForwardingTables tables;
            try (DmodcEngine engine = new DmodcEngine(1)) {
                tables = engine.route(TestFabrics.degraded(spec, 3).index()).tables();
            }
            Path bin = dir.resolve("t.lftb");
            Path text = dir.resolve("t.lft");
            LftBinary.write(tables, "dmodc", bin);
            LftText.write(tables, "dmodc", text);
            ForwardingTables back = LftBinary.read(bin);
            assertThat(back.sameAs(tables)).as(spec).isTrue();
            assertThat(LftBinary.readEither(bin).sameAs(LftText.read(text))).as(spec).isTrue();
            assertThat(LftBinary.isBinary(bin)).isTrue();
            assertThat(LftBinary.isBinary(text)).isFalse();
            long distinct = Arrays.stream(rows(tables)).map(Arrays::toString).distinct().count();
            assertThat(Files.size(bin)).as(spec).isEqualTo(8 + 17 + 5 + 12L * tables.switchCount()
                    + distinct * tables.destinationCount());
        }
    }

    @Test
    void switchesWithEqualRowsShareOneArrayWhenRead() {
        ForwardingTables.Builder b = ForwardingTables.builder(new long[] {1, 2, 3}, 4);
        for (int s = 0; s < 3; s++) {
            for (int d = 0; d < 4; d++) {
                b.set(s, d, s == 2 ? 9 : d + 1);
            }
        }
        Path bin = dir.resolve("shared.lftb");
        LftBinary.write(b.build(), "test", bin);
        ForwardingTables back = LftBinary.read(bin);
        assertThat(back.sharesRow(0, back, 1)).isTrue();
        assertThat(back.sharesRow(0, back, 2)).isFalse();
        assertThat(back.port(2, 3)).isEqualTo(9);
    }

    @Test
    void refusesAnotherVersionATruncatedFileAndAnotherFormat() throws IOException {
        ForwardingTables.Builder b = ForwardingTables.builder(new long[] {1, 2}, 3);
        Path bin = dir.resolve("v.lftb");
        LftBinary.write(b.build(), "test", bin);
        byte[] bytes = Files.readAllBytes(bin);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(8, 2);
        Path v2 = dir.resolve("v2.lftb");
        Files.write(v2, bytes);
        assertThatThrownBy(() -> LftBinary.read(v2)).isInstanceOf(TopologyException.class)
                .hasMessageContaining(v2.toString()).hasMessageContaining("version 2");
        Path cut = dir.resolve("cut.lftb");
        Files.write(cut, Arrays.copyOf(Files.readAllBytes(bin), bytes.length - 1));
        assertThatThrownBy(() -> LftBinary.read(cut)).hasMessageContaining(cut.toString())
                .hasMessageContaining("its header says");
        Path text = dir.resolve("t.lft");
        LftText.write(b.build(), "test", text);
        assertThatThrownBy(() -> LftBinary.read(text)).hasMessageContaining("not an lft-bin/1 file");
    }

    private static byte[][] rows(ForwardingTables tables) {
        byte[][] rows = new byte[tables.switchCount()][];
        for (int s = 0; s < rows.length; s++) {
            rows[s] = tables.copyRow(s);
        }
        return rows;
    }
}
