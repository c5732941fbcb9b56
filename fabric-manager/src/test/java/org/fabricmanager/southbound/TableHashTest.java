package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TableHashTest {
    @Test
    void matchesTheTestVectorsOfTheProtocolDocument() {
        assertThat(TableHash.EMPTY).isEqualTo(0xc6b9fda02c79d925L);
        assertThat(TableHash.of(new byte[] {1, 2, (byte) 255})).isEqualTo(0xd0168d936630b04eL);
        byte[] unrouted = new byte[64];
        Arrays.fill(unrouted, (byte) 255);
        assertThat(TableHash.of(unrouted)).isEqualTo(0x1bed065227199251L);
        assertThat(TableHash.of(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9})).isEqualTo(0xae4f5a98dab74e52L);
    }

    @Test
    void followsTheDocumentedDefinitionOnRandomTables() {
        java.util.Random random = new java.util.Random(5);
        for (int n = 0; n < 300; n++) {
            byte[] t = new byte[random.nextInt(200)];
            random.nextBytes(t);
            long h = round(0x9e3779b97f4a7c15L, t.length);
            for (int i = 0; i < t.length; i += 8) {
                h = round(h, word(t, i));
            }
            h ^= h >>> 33;
            h *= 0xff51afd7ed558ccdL;
            h ^= h >>> 33;
            h *= 0xc4ceb9fe1a85ec53L;
            h ^= h >>> 33;
            assertThat(TableHash.of(t)).as("length %d", t.length).isEqualTo(h);
        }
    }

    private static long round(long h, long w) {
        return Long.rotateLeft(h ^ w * 0xc2b2ae3d27d4eb4fL, 31) * 0x9e3779b185ebca87L;
    }

    private static long word(byte[] t, int i) {
        long w = 0;
        for (int k = 0; k < 8 && i + k < t.length; k++) {
            w |= (t[i + k] & 0xffL) << (8 * k);
        }
        return w;
    }

    /** Protocol version 2's hash: FNV-1a steps over the same words. */
    private static long fnvWords(byte[] t) {
        long h = (0xcbf29ce484222325L ^ t.length) * 0x100000001b3L;
        for (int i = 0; i < t.length; i += 8) {
            h = (h ^ word(t, i)) * 0x100000001b3L;
        }
        return h;
    }

    /**
     * The rows of switch s2-8 in chaos seed 136 (`down:23 down:63 restart check`) before and after the restart: the
     * new routing swaps entries 23 and 63. Protocol 2's hash took them for one table, and the restarted daemon
     * counted s2-8 in sync while it forwarded by the old row.
     */
    @Test
    void theRowsThatProtocolTwoTookForOneHashApart() {
        byte[] before = {5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8,
            1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8};
        byte[] after = before.clone();
        after[23] = 8;
        after[63] = 6;
        assertThat(fnvWords(after)).as("protocol 2's hash").isEqualTo(fnvWords(before));
        assertThat(TableHash.of(after)).isNotEqualTo(TableHash.of(before));
    }

    /**
     * Two entries swapped, the change a re-routing makes most, in tables of small port numbers: protocol 2's hash
     * took about one in a hundred swaps of entries 8k+7 and 8j+7 for no change.
     */
    @Test
    void swappedEntriesHashApart() {
        java.util.Random random = new java.util.Random(8);
        int topBytes = 0;
        int fnvCollisions = 0;
        for (int n = 0; n < 100_000; n++) {
            byte[] t = new byte[64 * (1 + random.nextInt(4))];
            for (int i = 0; i < t.length; i++) {
                t[i] = (byte) (1 + random.nextInt(8));
            }
            boolean top = n % 2 == 0; // half of the swaps between top bytes of words, half anywhere
            int x = top ? random.nextInt(t.length / 8) * 8 + 7 : random.nextInt(t.length);
            int y = top ? random.nextInt(t.length / 8) * 8 + 7 : random.nextInt(t.length);
            if (t[x] == t[y]) {
                continue;
            }
            byte[] u = t.clone();
            u[x] = t[y];
            u[y] = t[x];
            assertThat(TableHash.of(u)).as("table %d, entries %d and %d swapped", n, x, y).isNotEqualTo(TableHash.of(t));
            topBytes += top ? 1 : 0;
            fnvCollisions += fnvWords(u) == fnvWords(t) ? 1 : 0;
        }
        assertThat(topBytes).as("swaps of top bytes tried").isGreaterThan(40_000);
        assertThat(fnvCollisions).as("the same swaps under protocol 2's hash").isGreaterThan(100);
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
