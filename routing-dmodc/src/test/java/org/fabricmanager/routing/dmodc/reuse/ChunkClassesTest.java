package org.fabricmanager.routing.dmodc.reuse;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ChunkClasses} against the cost bytes: on random rows (profiled and not, few or many segments, rows
 * that copy chunks of other rows, leaf counts that are not multiples of the chunk), two rows have the same id
 * at a chunk exactly when their costs there are equal, a chunk of one cost {@code v} has id {@code v}, and
 * {@link ChunkClasses#addDifferences} marks exactly the chunks that differ. Seeds are printed on failure.
 */
class ChunkClassesTest {
    private static final RoutingPool POOL = new RoutingPool(2, "test");

    @AfterAll
    static void close() {
        POOL.close();
    }

    @Test
    void equalIdsAreEqualCostsChunkByChunk() {
        for (int seed = 1; seed <= 300; seed++) {
            Random random = new Random(seed);
            int leaves = 1 + random.nextInt(random.nextBoolean() ? 70 : 400);
            int switches = 2 + random.nextInt(12);
            CostTable costs = new CostTable(switches, leaves);
            byte[] c = costs.array();
            for (int s = 0; s < switches; s++) {
                int mode = 1 + random.nextInt(5);
                Arrays.fill(c, s * leaves, (s + 1) * leaves, (byte) mode);
                int off = random.nextInt(5) == 0 ? random.nextInt(leaves + 1) : random.nextInt(1 + leaves / 10);
                for (int k = 0; k < off; k++) {
                    int from = random.nextInt(leaves);
                    int len = random.nextInt(4) == 0 ? 1 + random.nextInt(40) : 1;
                    int v = random.nextInt(6) == 0 ? CostTable.INFINITE : random.nextInt(7);
                    Arrays.fill(c, s * leaves + from, s * leaves + Math.min(leaves, from + len), (byte) v);
                }
                if (s > 0 && random.nextBoolean()) {
                    // a row equal to an earlier one but for a few leaves: the classes must match elsewhere
                    int t = random.nextInt(s);
                    System.arraycopy(c, t * leaves, c, s * leaves, leaves);
                    c[s * leaves + random.nextInt(leaves)] = (byte) random.nextInt(7);
                }
            }
            RowProfiles profiles = new RowProfiles(switches);
            int[] histogram = new int[CostTable.INFINITE + 1];
            int[] scratch = new int[3 * leaves / 8 + 3];
            for (int s = 0; s < switches; s++) {
                profiles.profile(costs, s, histogram, scratch);
            }
            boolean[] wanted = new boolean[switches];
            Arrays.fill(wanted, true);
            ChunkClasses classes = ChunkClasses.of(costs, profiles, wanted, POOL);
            int chunks = (leaves + ChunkClasses.CHUNK - 1) / ChunkClasses.CHUNK;
            assertThat(classes.chunks()).isEqualTo(chunks);
            for (int a = 0; a < switches; a++) {
                for (int ch = 0; ch < chunks; ch++) {
                    int from = ch * ChunkClasses.CHUNK;
                    int to = classes.chunkEnd(ch);
                    byte[] mine = Arrays.copyOfRange(c, a * leaves + from, a * leaves + to);
                    String what = String.format("seed %d, rows %d, chunk %d: %s", seed, a, ch, Arrays.toString(mine));
                    if (uniform(mine)) {
                        assertThat(classes.id(a, ch)).as(what).isEqualTo((int) mine[0]);
                    } else {
                        assertThat(classes.id(a, ch) < 0 || classes.id(a, ch) > CostTable.INFINITE).as(what + ": not a one-cost id").isTrue();
                    }
                }
                for (int b = 0; b < switches; b++) {
                    long[] differ = new long[(chunks + 63) >>> 6];
                    int n = classes.addDifferences(a, b, differ);
                    int expected = 0;
                    for (int ch = 0; ch < chunks; ch++) {
                        int from = ch * ChunkClasses.CHUNK;
                        int to = classes.chunkEnd(ch);
                        boolean same = Arrays.equals(c, a * leaves + from, a * leaves + to, c, b * leaves + from,
                                b * leaves + to);
                        String what = String.format("seed %d, rows %d and %d, chunk %d", seed, a, b, ch);
                        assertThat(classes.id(a, ch) == classes.id(b, ch)).as(what).isEqualTo(same);
                        assertThat((differ[ch >>> 6] >>> ch & 1) == 0).as(what).isEqualTo(same);
                        expected += same ? 0 : 1;
                    }
                    assertThat(n).as("seed %d, rows %d and %d", seed, a, b).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void onlyTheRowsAskedForAreClassified() {
        CostTable costs = new CostTable(3, 40);
        RowProfiles profiles = new RowProfiles(3);
        int[] histogram = new int[CostTable.INFINITE + 1];
        int[] scratch = new int[3 * 40 / 8 + 3];
        for (int s = 0; s < 3; s++) {
            profiles.profile(costs, s, histogram, scratch);
        }
        ChunkClasses classes = ChunkClasses.of(costs, profiles, new boolean[] {true, false, true}, POOL);
        assertThat(classes.id(0, 1)).isEqualTo(0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> classes.id(1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("switch 1");
    }

    private static boolean uniform(byte[] bytes) {
        for (byte b : bytes) {
            if (b != bytes[0]) {
                return false;
            }
        }
        return true;
    }
}
