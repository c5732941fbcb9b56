package org.fabricmanager.routing.dmodc.fill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.fabricmanager.routing.dmodc.shared.SharedRows;
import org.junit.jupiter.api.Test;

/**
 * {@link RotationRuns} against formulas (3)-(4) written plainly ({@code port(d) = C[d mod #C]},
 * {@code C} the ports of the set positions in ascending order), on random switches: positions up
 * to 32 (the branch-free sequence build) and up to 64, ports numbered alike or shuffled, switches
 * in a row that keep or change the ports of shared positions, runs short and long, through both
 * {@code fill} (cached) and {@code prepare}/{@code write}. Seeds are printed on failure.
 */
class RotationRunsTest {
    private static final int ROW = 4096;

    @Test
    void runsAreThePortsOfTheCandidatesInRotation() {
        for (int seed = 1; seed <= 200; seed++) {
            Random random = new Random(seed);
            RotationRuns runs = new RotationRuns();
            int size = random.nextBoolean() ? 1 + random.nextInt(32) : 1 + random.nextInt(64);
            byte[] ports = new byte[SharedRows.MAX_MEMBERS];
            renumber(ports, size, random, random.nextBoolean());
            for (int sw = 0; sw < 6; sw++) {
                if (random.nextInt(3) == 0) {
                    renumber(ports, size, random, random.nextBoolean());
                }
                long all = size == 64 ? -1L : (1L << size) - 1;
                long has = all & ~randomBits(random, size, random.nextInt(4));
                runs.begin(has, ports);
                byte[] row = new byte[ROW];
                byte[] expected = new byte[ROW];
                for (int run = 0; run < 40; run++) {
                    long y = has & ~randomBits(random, size, random.nextInt(5));
                    if (random.nextInt(10) == 0) {
                        y = has & randomBits(random, size, 1 + random.nextInt(3)); // a few candidates
                    }
                    int from = random.nextInt(ROW - 1);
                    int len = random.nextInt(4) == 0 ? 1 + random.nextInt(400) : 1 + random.nextInt(70);
                    int to = Math.min(ROW, from + len);
                    if (random.nextBoolean()) {
                        runs.fill(row, from, to, y);
                    } else {
                        runs.prepare(y);
                        runs.write(row, from, to);
                    }
                    expect(expected, from, to, y, ports);
                    assertThat(row).as("seed %d, switch %d, run %d: set %x over [%d, %d), has %x, %d positions", seed, sw,
                            run, y, from, to, has, size).isEqualTo(expected);
                }
            }
        }
    }

    private static void expect(byte[] row, int from, int to, long y, byte[] ports) {
        int n = Long.bitCount(y);
        for (int d = from; d < to; d++) {
            if (n == 0) {
                row[d] = (byte) 255;
                continue;
            }
            int k = d % n;
            long bits = y;
            for (int i = 0; i < k; i++) {
                bits &= bits - 1;
            }
            row[d] = ports[Long.numberOfTrailingZeros(bits)];
        }
    }

    /** Ports 33.. in position order, or a random permutation of them. */
    private static void renumber(byte[] ports, int size, Random random, boolean shuffle) {
        for (int j = 0; j < size; j++) {
            ports[j] = (byte) (33 + j);
        }
        if (shuffle) {
            for (int j = size - 1; j > 0; j--) {
                int i = random.nextInt(j + 1);
                byte t = ports[i];
                ports[i] = ports[j];
                ports[j] = t;
            }
        }
    }

    private static long randomBits(Random random, int size, int count) {
        long bits = 0;
        for (int i = 0; i < count; i++) {
            bits |= 1L << random.nextInt(size);
        }
        return bits;
    }
}
