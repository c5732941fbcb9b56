package org.fabricmanager.routing.dmodc.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link RowProfiles} against a plain computation (the most frequent cost, smallest on ties, and
 * its maximal runs of other costs; no segments when more than an eighth of the leaves are
 * elsewhere), on random rows: few or many scattered one-leaf segments (a degraded row), runs of
 * several leaves (up to 40, past the eight-leaf steps inside a segment), segments next to each other with different costs, at either end, infinite costs,
 * row lengths that are not multiples of eight, and rows without a dominant cost. Seeds are printed
 * on failure.
 */
class RowProfilesTest {

    @Test
    void profilesAreTheModeAndItsMaximalRunsOfOtherCosts() {
        for (int seed = 1; seed <= 2000; seed++) {
            Random random = new Random(seed);
            int leaves = 1 + random.nextInt(random.nextBoolean() ? 40 : 400);
            int switches = 3;
            CostTable costs = new CostTable(switches, leaves);
            byte[] c = costs.array();
            for (int s = 0; s < switches; s++) {
                int mode = random.nextInt(4) == 0 ? CostTable.INFINITE : 1 + random.nextInt(6);
                Arrays.fill(c, s * leaves, (s + 1) * leaves, (byte) mode);
                int off = random.nextInt(4) == 0 ? random.nextInt(leaves + 1) : random.nextInt(1 + leaves / 8);
                for (int k = 0; k < off; k++) {
                    int from = random.nextInt(leaves);
                    int len = random.nextInt(5) == 0 ? 1 + random.nextInt(random.nextBoolean() ? 12 : 40) : 1;
                    int v = random.nextInt(5) == 0 ? CostTable.INFINITE : random.nextInt(8);
                    Arrays.fill(c, s * leaves + from, s * leaves + Math.min(leaves, from + len), (byte) v);
                }
            }
            RowProfiles profiles = new RowProfiles(switches);
            int[] histogram = new int[CostTable.INFINITE + 1];
            int[] scratch = new int[3 * leaves / 8 + 3];
            for (int s = 0; s < switches; s++) {
                profiles.profile(costs, s, histogram, scratch);
                byte[] row = Arrays.copyOfRange(c, s * leaves, (s + 1) * leaves);
                int mode = mostFrequent(row);
                String what = String.format("seed %d, switch %d, row %s", seed, s, Arrays.toString(row));
                assertThat(profiles.mode(s)).as(what).isEqualTo(mode);
                assertThat(profiles.segments(s)).as(what).isEqualTo(segments(row, mode));
            }
        }
    }

    private static int mostFrequent(byte[] row) {
        int[] count = new int[CostTable.INFINITE + 1];
        for (byte v : row) {
            count[v]++;
        }
        int best = 0;
        for (int v = 1; v < count.length; v++) {
            if (count[v] > count[best]) {
                best = v;
            }
        }
        return best;
    }

    private static int[] segments(byte[] row, int mode) {
        int leaves = row.length;
        int[] list = new int[3 * leaves];
        int n = 0;
        int off = 0;
        for (int l = 0; l < leaves; ) {
            if (row[l] == mode) {
                l++;
                continue;
            }
            int from = l;
            while (l < leaves && row[l] == row[from]) {
                l++;
            }
            off += l - from;
            list[n++] = from;
            list[n++] = l;
            list[n++] = row[from];
        }
        return off > leaves / 8 ? null : Arrays.copyOf(list, n);
    }
}
