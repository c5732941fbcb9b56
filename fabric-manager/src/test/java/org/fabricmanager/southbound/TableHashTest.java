package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TableHashTest {
    @Test
    void matchesTheTestVectorsOfTheProtocolDocument() {
        assertThat(TableHash.EMPTY).isEqualTo(0xaf63bd4c8601b7dfL);
        assertThat(TableHash.of(new byte[] {1, 2, (byte) 255})).isEqualTo(0x0537ef0962d8bac9L);
        byte[] unrouted = new byte[64];
        Arrays.fill(unrouted, (byte) 255);
        assertThat(TableHash.of(unrouted)).isEqualTo(0x817e3c2ec65c20f7L);
        assertThat(TableHash.of(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9})).isEqualTo(0x0a80c513c7cca842L);
    }

    @Test
    void followsTheDocumentedDefinitionOnRandomTables() {
        java.util.Random random = new java.util.Random(5);
        for (int n = 0; n < 300; n++) {
            byte[] t = new byte[random.nextInt(200)];
            random.nextBytes(t);
            long h = (0xcbf29ce484222325L ^ t.length) * 0x100000001b3L;
            for (int i = 0; i < t.length; i += 8) {
                long w = 0;
                for (int k = 0; k < 8 && i + k < t.length; k++) {
                    w |= (t[i + k] & 0xffL) << (8 * k);
                }
                h = (h ^ w) * 0x100000001b3L;
            }
            assertThat(TableHash.of(t)).as("length %d", t.length).isEqualTo(h);
        }
    }

    @Test
    void tablesThatDifferInOneEntryHashApart() {
        java.util.Random random = new java.util.Random(6);
        byte[] t = new byte[4096];
        random.nextBytes(t);
        long h = TableHash.of(t);
        for (int i = 0; i < t.length; i++) {
            byte old = t[i];
            t[i] = (byte) (old + 1 + random.nextInt(255));
            assertThat(TableHash.of(t)).isNotEqualTo(h);
            t[i] = old;
        }
    }

    @Test
    void lengthIsPartOfTheHash() {
        assertThat(TableHash.of(new byte[] {0})).isNotEqualTo(TableHash.of(new byte[] {0, 0}));
        byte[] big = {9, 1, 2, 3};
        assertThat(TableHash.of(big, 1, 3)).isEqualTo(TableHash.of(new byte[] {1, 2, 3}));
    }

    @Test
    void chunksOfWholeWordsHashAsTheirConcatenation() {
        java.util.Random random = new java.util.Random(7);
        for (int n = 0; n < 300; n++) {
            byte[] t = new byte[random.nextInt(700)];
            random.nextBytes(t);
            java.util.List<byte[]> chunks = new java.util.ArrayList<>();
            for (int from = 0; from < t.length; ) {
                int size = Math.min(t.length - from, 8 * (1 + random.nextInt(12)));
                chunks.add(Arrays.copyOfRange(t, from, from + size));
                from += size;
            }
            assertThat(TableHash.ofChunks(chunks.toArray(byte[][]::new), t.length)).as("length %d in %d chunks",
                    t.length, chunks.size()).isEqualTo(TableHash.of(t));
        }
    }

    @Test
    void chunksThatSplitAWordOrMissEntriesAreRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TableHash.ofChunks(new byte[][] {new byte[5], new byte[3]}, 8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole words");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TableHash.ofChunks(new byte[][] {new byte[8]}, 9))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not 9");
    }
}
