package org.fabricmanager.routing.dmodc.home;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link Bits}' tricks against their plain forms: select against clearing the lowest set bit {@code p} times, the
 * remainder against {@code %}, the bit range, the fill and the blend against a loop over the entries.
 */
class BitsTest {
    @Test
    void selectsThePthSetBitOfAnyWord() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            long word = switch (i % 4) {
                case 0 -> random.nextLong();
                case 1 -> random.nextLong() & random.nextLong() & random.nextLong();
                case 2 -> -1L >>> random.nextInt(64);
                default -> ~(1L << random.nextInt(64)) & ~(1L << random.nextInt(64));
            };
            if (word == 0) {
                continue;
            }
            int p = random.nextInt(Long.bitCount(word));
            long plain = word;
            for (int j = 0; j < p; j++) {
                plain &= plain - 1;
            }
            assertThat(Bits.select(word, p)).as("%x, %d", word, p).isEqualTo(Long.numberOfTrailingZeros(plain));
        }
        assertThat(Bits.select(-1L, 63)).isEqualTo(63);
        assertThat(Bits.select(Long.MIN_VALUE, 0)).isEqualTo(63);
    }

    @Test
    void quotientAndRemainderByMultiplicationAreThePlainOnes() {
        SplittableRandom random = new SplittableRandom(11);
        for (int c = 1; c <= Long.SIZE; c++) {
            for (long a : new long[] {0, 1, c - 1, c, 0xFFFF_FFFFL, 0x7FFF_FFFFL, 0x8000_0000L}) {
                assertThat(Bits.mod(a, c)).as("%d mod %d", a, c).isEqualTo((int) (a % c));
                assertThat(Bits.div(a, c)).as("%d / %d", a, c).isEqualTo(a / c);
            }
            for (int i = 0; i < 5_000; i++) {
                long a = random.nextLong(1L << 32);
                assertThat(Bits.mod(a, c)).as("%d mod %d", a, c).isEqualTo((int) (a % c));
                assertThat(Bits.div(a, c)).as("%d / %d", a, c).isEqualTo(a / c);
            }
        }
        for (int c : new int[] {65, 100, 128, 255, 256, 1_000, 65_537, Integer.MAX_VALUE}) {
            long magic = Bits.magic(c);
            for (long a : new long[] {0, 1, c - 1, c, 0xFFFF_FFFFL, 0x7FFF_FFFFL, 0x8000_0000L}) {
                assertThat(Bits.mod(a, c, magic)).as("%d mod %d", a, c).isEqualTo((int) (a % c));
            }
            for (int i = 0; i < 5_000; i++) {
                long a = random.nextLong(1L << 32);
                assertThat(Bits.mod(a, c, magic)).as("%d mod %d", a, c).isEqualTo((int) (a % c));
            }
        }
    }

    @Test
    void rangeFillAndBlendAreThePlainLoops() {
        SplittableRandom random = new SplittableRandom(13);
        for (int i = 0; i < 20_000; i++) {
            long[] bits = {random.nextLong(), random.nextLong(), random.nextLong()};
            int count = 8 * random.nextInt(1, 9);
            int from = random.nextInt(3 * Long.SIZE - count + 1);
            long chunk = Bits.range(bits, from, count);
            for (int j = 0; j < Long.SIZE; j++) {
                boolean plain = j < count && (bits[(from + j) >>> 6] >>> (from + j) & 1) != 0;
                assertThat((chunk >>> j & 1) != 0).as("bit %d of [%d, +%d)", j, from, count).isEqualTo(plain);
            }
            byte[] row = new byte[from + count + 9];
            random.nextBytes(row);
            byte[] plain = row.clone();
            int port = random.nextInt(256);
            int fill = random.nextInt(-1, 256);
            Bits.blend(row, from, count, chunk, port, fill);
            for (int j = 0; j < count; j++) {
                plain[from + j] = (byte) ((chunk >>> j & 1) != 0 ? port : fill < 0 ? plain[from + j] : fill);
            }
            assertThat(row).as("blend of [%d, +%d), port %d, fill %d", from, count, port, fill).isEqualTo(plain);
            int to = from + random.nextInt(count + 1);
            Bits.fill(row, from, to, (byte) port);
            for (int j = from; j < to; j++) {
                plain[j] = (byte) port;
            }
            assertThat(row).as("fill of [%d, %d)", from, to).isEqualTo(plain);
        }
    }
}
