package org.fabricmanager.routing.dmodc.home;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link Bits#select} against clearing the lowest set bit {@code p} times. */
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
}
