package org.fabricmanager.routing.dmodc.shared;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.preprocess.CostDivider;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;
import org.fabricmanager.routing.dmodc.preprocess.Neighbours;
import org.fabricmanager.routing.dmodc.preprocess.Ranks;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The rows merged once for many switches ({@link SharedRows} and {@link NeighbourBlocks} for routes)
 * say, leaf by leaf, exactly what the rows themselves say; and degraded fat trees are mostly computed
 * through them, so that the reference comparisons of {@code DmodcEngineTest} exercise them. (The up
 * sets merged for costs are {@code CostDividerTest}'s.)
 */
class SharedNeighbourRowsTest {
    private static final RoutingPool POOL = new RoutingPool(2, "test");

    @AfterAll
    static void close() {
        POOL.close();
    }

    /** Exact wherever the asking switch reaches the leaf; where none of a set's askers does, the set may say anything. */
    @Test
    void sharedRowsGiveTheRowsCostsComparedAtEveryLeaf() {
        Random random = new Random(5);
        for (TestFabrics.Degraded d : TestFabrics.degradations(TestFabrics.MEDIUM_SPECS, 3)) {
            FabricIndex index = d.fabric().index();
            Ranks ranks = Ranks.of(index);
            CostDivider.Result cd = CostDivider.compute(index, ranks, Neighbours.of(index, ranks), POOL);
            NeighbourBlocks blocks = NeighbourBlocks.of(index, ranks.array(), cd.costs(), cd.profiles(), POOL);
            for (int s = 0; s < index.switchCount(); s++) {
                if (!blocks.eligible(s)) {
                    continue;
                }
                for (int b = blocks.firstBlock(s); b < blocks.firstBlock(s + 1); b++) {
                    SharedRows rows = blocks.rows(b);
                    int v = random.nextInt(6);
                    v = v == 5 ? CostTable.INFINITE : v;
                    int i = 0;
                    for (int l = 0; l < index.leafCount(); l++) {
                        while (i < rows.intervals() && rows.to(i) <= l) {
                            i++;
                        }
                        if (cd.costs().cost(s, l) == CostTable.INFINITE) {
                            continue; // no route there whatever the set says (sets merge over such leaves)
                        }
                        long mask = i < rows.intervals() && rows.from(i) <= l ? rows.lessThan(i, v) : rows.base(v);
                        long expected = 0;
                        for (int j = 0; j < rows.size(); j++) {
                            if (cd.costs().cost(rows.member(j), l) < v) {
                                expected |= 1L << j;
                            }
                        }
                        assertThat(mask).as("%s: set of switch %d, leaf %d, below %d", d, s, l, v).isEqualTo(expected);
                        // The block's own groups: bit i for its i-th group, in group order.
                        long groups = 0;
                        int g0 = index.groupStart(s) + blocks.groupFrom(b);
                        for (int g = 0; g < blocks.groupCount(b); g++) {
                            if (cd.costs().cost(index.groupNeighbour(g0 + g), l) < v) {
                                groups |= 1L << g;
                            }
                        }
                        assertThat(blocks.toGroups(b, mask)).as("%s: block of switch %d, leaf %d", d, s, l)
                                .isEqualTo(groups);
                    }
                }
            }
        }
    }

    /**
     * {@link SharedRowsSplice#splice} gives the set {@link SharedRowsBuilder#build} gives from the same rows: every
     * pair of the sets asked by leaves (the pods' sets, the case it is for), and sets of random rows of
     * one rank spliced from the same rows with one to three of them replaced, on randomly degraded and
     * irregular fabrics; every interval's masks compared below every cost.
     */
    @Test
    void splicedSetsEqualSetsBuiltFromTheirRows() {
        List<TestFabrics.Degraded> fabrics = fabrics();
        int spliced = 0;
        for (TestFabrics.Degraded d : fabrics) {
            FabricIndex index = d.fabric().index();
            Ranks ranks = Ranks.of(index);
            CostDivider.Result cd = CostDivider.compute(index, ranks, Neighbours.of(index, ranks), POOL);
            SharedRowsScratch x = new SharedRowsScratch(index.leafCount());
            Random random = new Random(d.description().hashCode());
            List<int[][]> pairs = new ArrayList<>();
            NeighbourBlocks blocks = NeighbourBlocks.of(index, ranks.array(), cd.costs(), cd.profiles(), POOL);
            List<int[]> podSets = new ArrayList<>();
            for (int s = 0; s < index.switchCount(); s++) {
                if (blocks.eligible(s) && index.leafNumber(s) != FabricIndex.NONE
                        && blocks.firstBlock(s + 1) - blocks.firstBlock(s) == 1) {
                    SharedRows rows = blocks.rows(blocks.firstBlock(s));
                    int[] members = new int[rows.size()];
                    for (int j = 0; j < members.length; j++) {
                        members[j] = rows.member(j);
                    }
                    if (podSets.stream().noneMatch(p -> java.util.Arrays.equals(p, members))) {
                        podSets.add(members);
                    }
                }
            }
            for (int[] a : podSets) {
                for (int[] b : podSets) {
                    pairs.add(new int[][] {a, b});
                }
            }
            for (int draw = 0; draw < 40; draw++) {
                int rank = random.nextInt(ranks.top() + 1);
                List<Integer> level = ofRank(ranks, rank);
                if (level.size() < 2) {
                    continue;
                }
                java.util.Collections.shuffle(level, random);
                int m = Math.min(level.size() - 1, 1 + random.nextInt(SharedRows.MAX_MEMBERS));
                int[] members = level.subList(0, m).stream().mapToInt(Integer::intValue).toArray();
                int[] like = members.clone();
                for (int r = 1 + random.nextInt(3); r > 0; r--) {
                    like[random.nextInt(m)] = level.get(m + random.nextInt(level.size() - m));
                }
                java.util.Arrays.sort(members);
                java.util.Arrays.sort(like);
                if (java.util.Arrays.stream(like).distinct().count() == m) {
                    pairs.add(new int[][] {like, members});
                }
            }
            for (int[][] pair : pairs) {
                int threshold = random.nextInt(8);
                SharedRows like = SharedRowsBuilder.build(pair[0], cd.costs(), cd.profiles(),
                        random.nextBoolean() ? threshold : random.nextInt(8), x);
                SharedRows splice = SharedRowsSplice.splice(like, pair[1], cd.costs(), cd.profiles(), threshold, x);
                if (splice == null) {
                    continue;
                }
                spliced++;
                SharedRows built = SharedRowsBuilder.build(pair[1], cd.costs(), cd.profiles(), threshold, x);
                String what = d + ", rows " + java.util.Arrays.toString(pair[1]) + " from " + java.util.Arrays.toString(pair[0]);
                assertSameSet(splice, built, what);
            }
        }
        assertThat(spliced).as("sets spliced").isGreaterThan(200);
    }

    @Test
    void intervalGroupsHoldEveryIntervalOnceWithItsMaskAndDestinations() {
        for (TestFabrics.Degraded d : TestFabrics.degradations(TestFabrics.MEDIUM_SPECS, 3)) {
            FabricIndex index = d.fabric().index();
            Ranks ranks = Ranks.of(index);
            CostDivider.Result cd = CostDivider.compute(index, ranks, Neighbours.of(index, ranks), POOL);
            LeafDestinations destinations = LeafDestinations.of(index);
            NeighbourBlocks blocks = NeighbourBlocks.of(index, ranks.array(), cd.costs(), cd.profiles(), destinations, POOL);
            int checked = 0;
            for (int s = 0; s < index.switchCount(); s++) {
                // Groups are built for the sets of leaves (one block, looking up), the rotations' users;
                // a top switch's one block looks down and has none.
                if (!blocks.eligible(s) || blocks.firstBlock(s + 1) - blocks.firstBlock(s) != 1
                        || index.leafNumber(s) == FabricIndex.NONE) {
                    continue;
                }
                int b = blocks.firstBlock(s);
                SharedRows rows = blocks.rows(b);
                IntervalGroups groups = blocks.intervalGroups(b);
                assertThat(groups).as("%s: leaf %d has one block", d, s).isNotNull();
                boolean[] seen = new boolean[rows.intervals()];
                for (int g = 0; g < groups.count(); g++) {
                    int previous = -1;
                    for (int k = groups.start(g); k < groups.start(g + 1); k++) {
                        int i = groups.interval(k);
                        assertThat(seen[i]).as("%s: interval %d listed twice", d, i).isFalse();
                        seen[i] = true;
                        assertThat(i).as("%s: group %d ascending", d, g).isGreaterThan(previous);
                        previous = i;
                        assertThat(rows.lessThan(i, rows.threshold())).as("%s: mask of interval %d", d, i)
                                .isEqualTo(groups.mask(g));
                        int expectedFrom = -1;
                        int expectedTo = -1;
                        boolean oneRange = true;
                        for (int l = rows.from(i); l < rows.to(i) && oneRange; l++) {
                            for (int e = destinations.start(l); e < destinations.start(l + 1); e++) {
                                int dest = destinations.destination(e);
                                if (expectedFrom < 0) {
                                    expectedFrom = dest;
                                } else if (dest != expectedTo) {
                                    oneRange = false;
                                }
                                expectedTo = dest + 1;
                            }
                        }
                        if (oneRange && expectedFrom >= 0) {
                            assertThat(groups.destinationFrom(i)).as("%s: interval %d", d, i).isEqualTo(expectedFrom);
                            assertThat(groups.destinationTo(i)).as("%s: interval %d", d, i).isEqualTo(expectedTo);
                        } else {
                            assertThat(groups.destinationFrom(i)).as("%s: interval %d", d, i).isEqualTo(-1);
                        }
                    }
                }
                for (int i = 0; i < seen.length; i++) {
                    assertThat(seen[i]).as("%s: interval %d in a group", d, i).isTrue();
                }
                checked++;
            }
            assertThat(checked).as(d.toString()).isPositive();
        }
    }

    @Test
    void degradedFatTreesAreMostlyComputedThroughSharedRows() {
        for (TestFabrics.Degraded d : TestFabrics.degradations(TestFabrics.MEDIUM_SPECS, 2)) {
            FabricIndex index = d.fabric().index();
            Ranks ranks = Ranks.of(index);
            Neighbours neighbours = Neighbours.of(index, ranks);
            CostDivider.Result cd = CostDivider.compute(index, ranks, neighbours, POOL);
            NeighbourBlocks blocks = NeighbourBlocks.of(index, ranks.array(), cd.costs(), cd.profiles(), POOL);
            int eligible = 0;
            for (int s = 0; s < index.switchCount(); s++) {
                eligible += blocks.eligible(s) ? 1 : 0;
            }
            assertThat(eligible).as(d.toString()).isGreaterThan(index.switchCount() * 3 / 4);
        }
    }

    @Test
    void setsLargerThanAMaskAreLeftToTheSwitchesOwnSweep() {
        // 96 leaves below each top switch: the tops' down block would need 96 rows.
        Fabric fabric = TestFabrics.canonical("PGFT(2;3,96;1,6;1,2)");
        FabricIndex index = fabric.index();
        CostDivider.Result cd = preprocess(index);
        NeighbourBlocks blocks = NeighbourBlocks.of(index, Ranks.of(index).array(), cd.costs(), cd.profiles(), POOL);
        for (int s = 0; s < index.switchCount(); s++) {
            assertThat(blocks.eligible(s)).as("switch %d", s).isEqualTo(index.isLeaf(s));
        }
    }

    private static CostDivider.Result preprocess(FabricIndex index) {
        Ranks ranks = Ranks.of(index);
        return CostDivider.compute(index, ranks, Neighbours.of(index, ranks), POOL);
    }

    /** The same intervals, and the same masks below every cost, at the base and in every interval. */
    private static void assertSameSet(SharedRows actual, SharedRows expected, String what) {
        assertThat(actual.intervals()).as(what).isEqualTo(expected.intervals());
        for (int v = 0; v <= CostTable.INFINITE; v++) {
            assertThat(actual.base(v)).as("%s: base below %d", what, v).isEqualTo(expected.base(v));
        }
        for (int i = 0; i < expected.intervals(); i++) {
            assertThat(actual.from(i)).as("%s: interval %d", what, i).isEqualTo(expected.from(i));
            assertThat(actual.to(i)).as("%s: interval %d", what, i).isEqualTo(expected.to(i));
            for (int v = 0; v <= CostTable.INFINITE; v++) {
                assertThat(actual.lessThan(i, v)).as("%s: interval %d below %d", what, i, v)
                        .isEqualTo(expected.lessThan(i, v));
            }
        }
    }

    /** Small and medium degraded PGFTs, two with pods large enough for many one-leaf segments, irregular fabrics. */
    private static List<TestFabrics.Degraded> fabrics() {
        List<TestFabrics.Degraded> fabrics = new ArrayList<>(TestFabrics.degradations(3));
        fabrics.addAll(TestFabrics.degradations(TestFabrics.MEDIUM_SPECS, 3));
        fabrics.addAll(TestFabrics.degradations(List.of("PGFT(3;4,16,12;1,16,4;1,1,1)", "PGFT(3;2,8,24;1,8,8;1,1,2)"), 4));
        fabrics.addAll(TestFabrics.irregular(6));
        return fabrics;
    }

    /** The switches of rank {@code rank}, in switch order. */
    private static List<Integer> ofRank(Ranks ranks, int rank) {
        List<Integer> level = new ArrayList<>();
        for (int s = 0; s < ranks.array().length; s++) {
            if (ranks.array()[s] == rank) {
                level.add(s);
            }
        }
        return level;
    }
}
