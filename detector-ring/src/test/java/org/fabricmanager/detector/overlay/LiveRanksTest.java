package org.fabricmanager.detector.overlay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LiveRanksTest {

    @Test
    void ranksLiveMembersClockwiseFromTheSourceSkippingTheDeadSet() {
        LiveRanks ranks = new LiveRanks(10, 7, new int[] {1, 8});
        assertThat(ranks.liveCount()).isEqualTo(8);
        assertThat(ranks.memberAt(0)).isEqualTo(7);
        assertThat(ranks.memberAt(1)).isEqualTo(9);
        assertThat(ranks.memberAt(2)).isEqualTo(0);
        assertThat(ranks.memberAt(3)).isEqualTo(2);
        assertThat(ranks.rankOf(8)).isEqualTo(-1);
        assertThat(ranks.rankOf(1)).isEqualTo(-1);
        assertThat(ranks.rankOf(6)).isEqualTo(7);
    }

    @Test
    void rankOfAndMemberAtAreInversesForRandomDeadSets() {
        for (long seed = 1; seed <= 300; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int n = 2 + random.nextInt(200);
            int source = random.nextInt(n);
            int[] dead = random.ints(random.nextInt(Math.min(n - 1, 20) + 1), 0, n)
                    .filter(d -> d != source).distinct().sorted().toArray();
            LiveRanks ranks = new LiveRanks(n, source, dead);
            assertThat(ranks.liveCount()).as("seed %d", seed).isEqualTo(n - dead.length);
            boolean[] seen = new boolean[n];
            for (int r = 0; r < ranks.liveCount(); r++) {
                int m = ranks.memberAt(r);
                assertThat(Arrays.binarySearch(dead, m)).as("seed %d rank %d", seed, r).isNegative();
                assertThat(seen[m]).as("seed %d: member %d twice", seed, m).isFalse();
                seen[m] = true;
                assertThat(ranks.rankOf(m)).as("seed %d", seed).isEqualTo(r);
            }
        }
    }

    @Test
    void rejectsASourceInItsOwnDeadSet() {
        assertThatThrownBy(() -> new LiveRanks(8, 3, new int[] {3})).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dead member 3");
    }
}
