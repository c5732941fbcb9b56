package org.fabricmanager.detector.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BinomialGraphOverlayTest {
    private static final BroadcastOverlay BMG = BroadcastOverlay.of(Overlay.BMG);

    @Test
    void linksEachRankToPlusAndMinusPowersOfTwo() {
        assertThat(BinomialGraphOverlay.neighbours(1024, 0)).containsExactlyInAnyOrder(
                1, 1023, 2, 1022, 4, 1020, 8, 1016, 16, 1008, 32, 992, 64, 960, 128, 896, 256, 768, 512);
        // 12 live ranks: +8 and -4 coincide, so the degree drops to 6.
        assertThat(BinomialGraphOverlay.neighbours(12, 5)).containsExactlyInAnyOrder(6, 4, 7, 3, 9, 1);
        assertThat(BinomialGraphOverlay.neighbours(2, 1)).containsExactly(0);
    }

    @Test
    void reachesEveryLiveMemberForRandomFailureSetsBelowItsConnectivity() {
        for (int n : new int[] {6, 13, 64, 100, 1024}) {
            int degree = BinomialGraphOverlay.neighbours(n, 0).length;
            for (long seed = 1; seed <= 150; seed++) {
                SplittableRandom random = new SplittableRandom(seed * 31 + n);
                int source = random.nextInt(n);
                int failures = Math.min(degree - 1, n - 2);
                boolean[] crashed = crash(random, n, source, failures);
                Coverage c = Coverage.of(BMG, n, source, new int[0], crashed);
                assertThat(c.reachedAllLive(crashed, new int[0])).as("n=%d seed %d failures %d", n, seed, failures).isTrue();
            }
        }
    }

    @Test
    void isTightAtItsDegreeCrashingEveryNeighbourIsolatesAMember() {
        int n = 64;
        int victim = 10;
        boolean[] crashed = new boolean[n];
        for (int r : BinomialGraphOverlay.neighbours(n, victim)) {
            crashed[r] = true;
        }
        int source = 40;
        assertThat(crashed[source]).isFalse();
        Coverage c = Coverage.of(BMG, n, source, new int[0], crashed);
        assertThat(c.reached()[victim]).isFalse();
    }

    @Test
    void forwardsOnlyOnceAndSkipsTheSenderSoMessagesMatchTheDegree() {
        int n = 1024;
        Coverage c = Coverage.of(BMG, n, 0, new int[0], new boolean[n]);
        assertThat(c.reachedAllLive(new boolean[n], new int[0])).isTrue();
        int degree = 19;
        assertThat(c.messages()).isEqualTo(degree + (long) (n - 1) * (degree - 1));
        assertThat(c.maxHops()).isLessThanOrEqualTo(10);
    }

    @Test
    void buildsTheGraphOnTheSourcesLiveMembers() {
        int n = 32;
        int[] known = {4, 5, 6};
        Coverage c = Coverage.of(BMG, n, 9, known, new boolean[n]);
        for (int d : known) {
            assertThat(c.reached()[d]).as("known dead %d gets no copy", d).isFalse();
        }
        assertThat(c.reachedAllLive(new boolean[n], known)).isTrue();
    }

    private static boolean[] crash(SplittableRandom random, int n, int source, int count) {
        boolean[] crashed = new boolean[n];
        int[] order = random.ints(0, n).distinct().filter(m -> m != source).limit(count).toArray();
        Arrays.stream(order).forEach(m -> crashed[m] = true);
        return crashed;
    }
}
