package org.fabricmanager.routing.dmodc.fill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Selectors} against formulas (3)-(4) written plainly: with {@code q = floor(d / Π_s)} and
 * {@code C} the candidate groups in group order, {@code port(d)} is port {@code floor(q / #C) mod #g}
 * of group {@code C[q mod #C]}, or no route when there are no candidates. Random switches (1 to 100
 * groups, so masks of one or two words; every group of one port, or some of several; the switch's
 * groups after another's), dividers from 1 to 1,024 (32 most often: a level-2 switch above leaves of
 * 32 nodes), and ranges of every kind: a few steps, under two periods of {@code q} (a level-2
 * switch's destination pod), whole rows, starting and ending inside a step. Seeds are printed on
 * failure.
 */
class SelectorsTest {
    private static final int[] DIVIDERS = {1, 2, 3, 7, 32, 32, 32, 64, 1024};

    @Test
    void rangesAreWhatFormulasThreeAndFourGive() {
        for (int seed = 1; seed <= 300; seed++) {
            Random random = new Random(seed);
            int before = random.nextInt(5);
            int groups = random.nextInt(4) == 0 ? 65 + random.nextInt(36) : 1 + random.nextInt(64);
            boolean singlePorts = random.nextInt(3) != 0;
            int total = before + groups;
            int[] portStart = new int[total + 1];
            int[] ports = new int[4 * total];
            for (int g = 0; g < total; g++) {
                int size = singlePorts ? 1 : 1 + random.nextInt(3);
                portStart[g + 1] = portStart[g] + size;
                for (int j = portStart[g]; j < portStart[g + 1]; j++) {
                    ports[j] = 1 + random.nextInt(250);
                }
            }
            int words = (groups + 63) >>> 6;
            Selectors selectors = new Selectors(portStart, ports, total);
            selectors.begin(before, words, groups);
            int pi = random.nextInt(5) == 0 ? 1 + random.nextInt(100) : DIVIDERS[random.nextInt(DIVIDERS.length)];
            int length = Math.max(4 * pi * Math.min(groups, 40), 4096);
            byte[] row = new byte[length];
            byte[] expected = new byte[length];
            for (int range = 0; range < 30; range++) {
                long[] mask = new long[words];
                for (int g = 0; g < groups; g++) {
                    if (random.nextInt(10) != 0 || random.nextInt(groups) == 0) {
                        mask[g >>> 6] |= 1L << g;
                    }
                }
                if (random.nextInt(20) == 0) {
                    mask = new long[words];
                }
                int n = 0;
                for (long word : mask) {
                    n += Long.bitCount(word);
                }
                int from = random.nextInt(length - 1);
                if (random.nextBoolean()) {
                    from -= from % pi; // at a step's start
                }
                int span = switch (random.nextInt(4)) {
                    case 0 -> 1 + random.nextInt(4 * pi);
                    case 1 -> 1 + random.nextInt(2 * pi * Math.max(1, n));
                    case 2 -> 2 * pi * Math.max(1, n) - random.nextInt(pi);
                    default -> length;
                };
                int to = (int) Math.min(length, (long) from + span);
                selectors.fill(row, from, to, mask, pi);
                for (int d = from; d < to; d++) {
                    expected[d] = port(mask, n, d / pi, before, portStart, ports);
                }
                assertThat(row).as("seed %d, range %d: %d groups after %d, %s ports, divider %d, %d candidates, [%d, %d)",
                        seed, range, groups, before, singlePorts ? "single" : "several", pi, n, from, to).isEqualTo(expected);
            }
        }
    }

    private static byte port(long[] mask, int n, int q, int g0, int[] portStart, int[] ports) {
        if (n == 0) {
            return (byte) 255;
        }
        int k = q % n;
        int g = -1;
        for (int i = 0, seen = 0; g < 0; i++) {
            if ((mask[i >>> 6] & (1L << i)) != 0 && seen++ == k) {
                g = g0 + i;
            }
        }
        int size = portStart[g + 1] - portStart[g];
        return (byte) ports[portStart[g] + (q / n) % size];
    }
}
