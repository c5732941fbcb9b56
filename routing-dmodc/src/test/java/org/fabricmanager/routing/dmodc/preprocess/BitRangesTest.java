package org.fabricmanager.routing.dmodc.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link BitRanges} against the same operations done bit by bit, on random bit sets and ranges:
 * ranges inside one word, across words, ending on a word boundary, empty, and whole sets. Seeds
 * are printed on failure.
 */
class BitRangesTest {

    @Test
    void rangesAreSetClearedAndTestedAsBitByBit() {
        for (int seed = 1; seed <= 500; seed++) {
            Random random = new Random(seed);
            int size = 1 + random.nextInt(300);
            int words = (size + 63) >>> 6;
            long[] bits = new long[words];
            for (int w = 0; w < words; w++) {
                bits[w] = random.nextInt(3) == 0 ? -1L : random.nextLong();
            }
            for (int op = 0; op < 50; op++) {
                int from = random.nextInt(size + 1);
                int to = random.nextInt(4) == 0 ? Math.min(size, (from + 63) & ~63) : from + random.nextInt(size + 1 - from);
                if (random.nextInt(10) == 0) {
                    from = 0;
                    to = size;
                }
                long[] expected = bits.clone();
                String what = String.format("seed %d, op %d, [%d, %d) of %d", seed, op, from, to, size);
                assertThat(BitRanges.allSet(bits, from, to)).as(what).isEqualTo(allSetBitByBit(bits, from, to));
                switch (random.nextInt(3)) {
                    case 0 -> {
                        BitRanges.set(bits, from, to);
                        for (int l = from; l < to; l++) {
                            expected[l >>> 6] |= 1L << l;
                        }
                    }
                    case 1 -> {
                        BitRanges.clear(bits, from, to);
                        for (int l = from; l < to; l++) {
                            expected[l >>> 6] &= ~(1L << l);
                        }
                    }
                    default -> {
                        // only the query
                    }
                }
                assertThat(bits).as(what).isEqualTo(expected);
                assertThat(BitRanges.allSet(bits, from, to)).as(what).isEqualTo(allSetBitByBit(bits, from, to));
            }
        }
    }

    @Test
    void nextSetAndNextClearFindTheFirstSuchBitBeforeTheLimit() {
        for (int seed = 1; seed <= 300; seed++) {
            Random random = new Random(seed);
            int size = 1 + random.nextInt(300);
            long[] bits = new long[(size + 63) >>> 6];
            for (int w = 0; w < bits.length; w++) {
                int kind = random.nextInt(4);
                bits[w] = kind == 0 ? 0L : kind == 1 ? -1L : random.nextLong() & random.nextLong();
            }
            for (int op = 0; op < 50; op++) {
                int limit = random.nextInt(size + 1);
                int from = random.nextInt(size + 1);
                int set = from;
                while (set < limit && (bits[set >>> 6] & (1L << set)) == 0) {
                    set++;
                }
                int clear = from;
                while (clear < limit && (bits[clear >>> 6] & (1L << clear)) != 0) {
                    clear++;
                }
                String what = String.format("seed %d, from %d, limit %d of %d", seed, from, limit, size);
                assertThat(BitRanges.nextSet(bits, from, limit)).as(what).isEqualTo(Math.min(set, limit));
                assertThat(BitRanges.nextClear(bits, from, limit)).as(what).isEqualTo(Math.min(clear, limit));
            }
        }
    }

    @Test
    void noneSaysWhetherAnyBitIsSet() {
        for (int size = 1; size <= 200; size++) {
            long[] bits = new long[(size + 63) >>> 6];
            assertThat(BitRanges.none(bits)).as("size %d, empty", size).isTrue();
            for (int l = 0; l < size; l++) {
                bits[l >>> 6] = 1L << l;
                assertThat(BitRanges.none(bits)).as("size %d, bit %d", size, l).isFalse();
                bits[l >>> 6] = 0;
            }
        }
    }

    private static boolean allSetBitByBit(long[] bits, int from, int to) {
        for (int l = from; l < to; l++) {
            if ((bits[l >>> 6] & (1L << l)) == 0) {
                return false;
            }
        }
        return true;
    }
}
