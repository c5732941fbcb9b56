package org.fabricmanager.detector.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HypercubeOverlayTest {
    private static final BroadcastOverlay HYPERCUBE = BroadcastOverlay.of(Overlay.HYPERCUBE);

    /** Slide 16 of Bosilca et al.: the path to every node of an 8-cube along the trees of nodes 1, 2 and 4. */
    @Test
    void followsTheDisjointPathsOfSlide16ForEightMembers() {
        int[][][] expected = {
                {},
                {{0, 1}, {0, 2, 3, 1}, {0, 4, 5, 1}},
                {{0, 1, 3, 2}, {0, 2}, {0, 4, 6, 2}},
                {{0, 1, 3}, {0, 2, 3}, {0, 4, 5, 7, 3}},
                {{0, 1, 5, 4}, {0, 2, 6, 4}, {0, 4}},
                {{0, 1, 5}, {0, 2, 6, 7, 5}, {0, 4, 5}},
                {{0, 1, 3, 7, 6}, {0, 2, 6}, {0, 4, 6}},
                {{0, 1, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}},
        };
        for (int tree = 0; tree < 3; tree++) {
            int[] parent = parents(8, 0, new int[0], 0, tree);
            for (int node = 1; node < 8; node++) {
                assertThat(path(parent, node).stream().mapToInt(Integer::intValue).toArray()).as("tree of node %d, path to %d", 1 << tree, node)
                        .containsExactly(expected[node][tree]);
            }
        }
    }

    @Test
    void pathsToEveryMemberAreNodeDisjointAcrossTrees() {
        for (int k = 1; k <= 7; k++) {
            int n = 1 << k;
            int[][] parents = new int[k][];
            for (int t = 0; t < k; t++) {
                parents[t] = parents(n, 0, new int[0], 0, t);
            }
            for (int node = 1; node < n; node++) {
                Set<Integer> inner = new HashSet<>();
                for (int t = 0; t < k; t++) {
                    List<Integer> p = path(parents[t], node);
                    for (int i = 1; i < p.size() - 1; i++) {
                        assertThat(inner.add(p.get(i))).as("n=%d node %d: member %d on two paths", n, node, p.get(i)).isTrue();
                    }
                }
            }
        }
    }

    /** The guarantee, checked exhaustively: every set of at most floor(log2 n) - 1 crashed members. */
    @Test
    void reachesEveryLiveMemberForEveryFailureSetUpToLogMinusOne() {
        for (int n = 2; n <= 34; n++) {
            int f = floorLog2(n) - 1;
            for (int source : new int[] {0, n / 2}) {
                assertAllSubsetsCovered(n, source, new int[0], f);
            }
        }
    }

    @Test
    void reachesEveryLiveMemberWhenTheSourceAlreadyKnowsSomeDead() {
        // The topology is built on the source's live members; unknown failures come on top.
        int n = 27;
        int[] known = {3, 4, 20};
        int f = floorLog2(n - known.length) - 1;
        assertAllSubsetsCovered(n, 5, known, f);
    }

    @Test
    void isTightLog2FailuresAroundTheSourceCutTheBroadcast() {
        boolean[] crashed = new boolean[8];
        crashed[1] = crashed[2] = crashed[4] = true;
        Coverage c = Coverage.of(HYPERCUBE, 8, 0, new int[0], crashed);
        assertThat(c.reachedAllLive(crashed, new int[0])).isFalse();
    }

    @Test
    void usesOneCubeForAPowerOfTwoAndTwoOtherwise() {
        assertThat(Coverage.of(HYPERCUBE, 1024, 0, new int[0], new boolean[1024]).messages()).isEqualTo(10L * 1023);
        // 1,023 live members: two cubes of 512 sharing the source.
        assertThat(Coverage.of(HYPERCUBE, 1024, 0, new int[] {700}, new boolean[1024]).messages()).isEqualTo(2L * 9 * 511);
    }

    @Test
    void completesWithinLog2PlusOneHops() {
        for (int n : new int[] {2, 3, 7, 64, 100, 1000, 1024, 1500}) {
            Coverage c = Coverage.of(HYPERCUBE, n, 0, new int[0], new boolean[n]);
            assertThat(c.reachedAllLive(new boolean[n], new int[0])).as("n=%d", n).isTrue();
            assertThat(c.maxHops()).as("n=%d", n).isLessThanOrEqualTo(floorLog2(n) + 1);
        }
    }

    @Test
    void reachesEveryLiveMemberForRandomFailureSetsAtScale() {
        int n = 1024;
        int f = floorLog2(n) - 1;
        for (long seed = 1; seed <= 200; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int source = random.nextInt(n);
            boolean[] crashed = new boolean[n];
            for (int placed = 0; placed < f; ) {
                int m = random.nextInt(n);
                if (m != source && !crashed[m]) {
                    crashed[m] = true;
                    placed++;
                }
            }
            Coverage c = Coverage.of(HYPERCUBE, n, source, new int[0], crashed);
            assertThat(c.reachedAllLive(crashed, new int[0])).as("seed %d", seed).isTrue();
        }
    }

    private static void assertAllSubsetsCovered(int n, int source, int[] known, int maxFailures) {
        List<Integer> candidates = new ArrayList<>();
        Set<Integer> knownSet = new HashSet<>();
        for (int d : known) {
            knownSet.add(d);
        }
        for (int i = 0; i < n; i++) {
            if (i != source && !knownSet.contains(i)) {
                candidates.add(i);
            }
        }
        boolean[] crashed = new boolean[n];
        long[] sets = {0};
        subsets(candidates, 0, maxFailures, crashed, () -> {
            sets[0]++;
            Coverage c = Coverage.of(HYPERCUBE, n, source, known, crashed);
            if (!c.reachedAllLive(crashed, known)) {
                List<Integer> failed = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    if (crashed[i]) {
                        failed.add(i);
                    }
                }
                throw new AssertionError("n=" + n + " source=" + source + " known dead " + knownSet
                        + ": crashing " + failed + " leaves a live member unreached");
            }
        });
        assertThat(sets[0]).isPositive();
    }

    private static void subsets(List<Integer> candidates, int from, int remaining, boolean[] crashed, Runnable check) {
        check.run();
        if (remaining == 0) {
            return;
        }
        for (int i = from; i < candidates.size(); i++) {
            int m = candidates.get(i);
            crashed[m] = true;
            subsets(candidates, i + 1, remaining - 1, crashed, check);
            crashed[m] = false;
        }
    }

    /** Parent of every member in one tree of one cube, -1 where the tree does not reach. */
    private static int[] parents(int n, int source, int[] dead, int cube, int tree) {
        LiveRanks ranks = new LiveRanks(n, source, dead);
        int[] parent = new int[n];
        java.util.Arrays.fill(parent, -1);
        List<Integer> frontier = new ArrayList<>();
        HYPERCUBE.originate(ranks, (target, c, t) -> {
            if (c == cube && t == tree) {
                parent[target] = source;
                frontier.add(target);
            }
        });
        while (!frontier.isEmpty()) {
            int member = frontier.remove(frontier.size() - 1);
            HYPERCUBE.forward(ranks, member, parent[member], cube, tree, (target, c, t) -> {
                assertThat(parent[target]).as("member %d reached twice in tree %d", target, tree).isEqualTo(-1);
                parent[target] = member;
                frontier.add(target);
            });
        }
        return parent;
    }

    private static List<Integer> path(int[] parent, int node) {
        List<Integer> p = new ArrayList<>();
        for (int m = node; m != -1; m = parent[m]) {
            p.add(0, m);
            if (m == 0) {
                break;
            }
        }
        return p;
    }

    private static int floorLog2(int n) {
        return 31 - Integer.numberOfLeadingZeros(n);
    }
}
