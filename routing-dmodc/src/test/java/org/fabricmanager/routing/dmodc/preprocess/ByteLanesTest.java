package org.fabricmanager.routing.dmodc.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The eight-costs-per-long operations against their one-byte definitions, on every byte value. */
class ByteLanesTest {

    @Test
    void matchesScalarMinIncrementAndLessThanOnAllValuePairs() {
        Random random = new Random(11);
        byte[] a = new byte[8];
        byte[] b = new byte[8];
        for (int round = 0; round < 128 * 128 / 8 * 4; round++) {
            for (int i = 0; i < 8; i++) {
                int pair = (round * 8 + i) % (128 * 128);
                a[i] = (byte) (round < 2048 ? pair / 128 : random.nextInt(128));
                b[i] = (byte) (round < 2048 ? pair % 128 : random.nextInt(128));
            }
            long la = ByteLanes.get(a, 0);
            long lb = ByteLanes.get(b, 0);
            long min = ByteLanes.min(la, lb);
            long inc = ByteLanes.incrementSaturating(la);
            long lt = ByteLanes.lessThan(lb, la);
            for (int i = 0; i < 8; i++) {
                int x = a[i];
                int y = b[i];
                assertThat((int) (min >>> (8 * i)) & 0xff).isEqualTo(Math.min(x, y));
                assertThat((int) (inc >>> (8 * i)) & 0xff).isEqualTo(x == CostTable.INFINITE ? x : x + 1);
                assertThat((int) (lt >>> (8 * i)) & 0xff).isEqualTo(y < x ? 0x80 : 0);
            }
        }
    }
}
