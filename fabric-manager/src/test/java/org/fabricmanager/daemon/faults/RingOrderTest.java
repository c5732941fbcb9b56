package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.Ranking;
import org.junit.jupiter.api.Test;

/**
 * What {@link RingOrder} promises, on fixed and seeded random PGFTs: the ring is a permutation of the
 * switches, it is deterministic, levels are interleaved round-robin (two consecutive members, the wrap
 * included, share a level only once every other level has run out), consecutive members are cabled
 * to each other no more often than without the look-ahead, and never on the fixed 3-level fabrics, and
 * within a level the members stay within {@link RingOrder#WINDOW} of their place in the stride walk
 * {@code 0, s, 2s, …, 1, 1+s, …} with {@code s = ceil(sqrt(m))} in canonical order.
 */
class RingOrderTest {
    static final List<String> FIXED = List.of("PGFT(2;4,4;1,2;1,1)", "PGFT(2;8,6;1,3;1,1)", "PGFT(3;4,4,2;1,4,2;1,1,1)",
            "PGFT(3;8,8,8;1,8,8;1,1,1)", "PGFT(3;4,6,3;1,2,3;1,2,1)", "PGFT(3;16,16,16;1,16,16;1,1,1)");

    static List<String> specs() {
        List<String> out = new ArrayList<>(FIXED);
        Random rnd = new Random(20261121L);
        for (int i = 0; i < 12; i++) {
            int h = 2 + rnd.nextInt(2);
            StringBuilder m = new StringBuilder();
            StringBuilder w = new StringBuilder("1");
            StringBuilder p = new StringBuilder("1");
            for (int l = 0; l < h; l++) {
                m.append(l == 0 ? "" : ",").append(2 + rnd.nextInt(5));
                if (l > 0) {
                    w.append(',').append(1 + rnd.nextInt(4));
                    p.append(',').append(1 + rnd.nextInt(2));
                }
            }
            out.add("PGFT(" + h + ";" + m + ";" + w + ";" + p + ")");
        }
        return out;
    }

    @Test
    void everySwitchExactlyOnceAndDeterministic() {
        for (String spec : specs()) {
            Fabric fabric = PgftGenerator.generate(PgftSpec.parse(spec));
            List<Long> ring = RingOrder.of(fabric);
            assertThat(ring).as(spec).hasSize(fabric.switches().size());
            assertThat(new HashSet<>(ring)).as(spec).hasSize(ring.size());
            for (int s = 0; s < fabric.index().switchCount(); s++) {
                assertThat(ring).as(spec).contains(fabric.index().switchGuid(s));
            }
            assertThat(RingOrder.of(fabric)).as(spec + " same fabric").isEqualTo(ring);
            assertThat(RingOrder.of(PgftGenerator.generate(PgftSpec.parse(spec)))).as(spec + " regenerated")
                    .isEqualTo(ring);
        }
    }

    @Test
    void consecutiveMembersShareALevelOnlyWhenEveryOtherLevelHasRunOut() {
        for (String spec : specs()) {
            Fabric fabric = PgftGenerator.generate(PgftSpec.parse(spec));
            FabricIndex index = fabric.index();
            int[] rank = Ranking.fromLeaves(index);
            List<Long> ring = RingOrder.of(fabric);
            int n = ring.size();
            int levels = 0;
            for (int r : rank) {
                levels = Math.max(levels, r + 1);
            }
            int[] size = new int[levels];
            for (int r : rank) {
                size[r]++;
            }
            int[] seen = new int[levels];
            for (int i = 0; i < n; i++) {
                int a = rank[index.switchId(ring.get(i))];
                seen[a]++;
                int b = rank[index.switchId(ring.get((i + 1) % n))];
                if (a != b) {
                    continue;
                }
                for (int l = 0; l < levels; l++) {
                    if (l != a) {
                        assertThat(seen[l]).as("%s: members %d and %d (level %d) are consecutive while level %d still "
                                + "has members", spec, i, (i + 1) % n, a, l).isEqualTo(size[l]);
                    }
                }
            }
            boolean equalLevels = true;
            for (int l = 1; l < levels; l++) {
                equalLevels &= size[l] == size[0];
            }
            if (equalLevels) {
                for (int i = 0; i < n; i++) {
                    assertThat(rank[index.switchId(ring.get(i))]).as("%s position %d", spec, i)
                            .isNotEqualTo(rank[index.switchId(ring.get((i + 1) % n))]);
                }
            }
        }
    }

    /** Switches cabled to each other, by switch id. */
    private static boolean linked(FabricIndex index, int a, int b) {
        for (int p : index.peerSwitches(a)) {
            if (p == b) {
                return true;
            }
        }
        return false;
    }

    /** Consecutive members of {@code ring} (switch ids) that are cabled to each other. */
    private static int cabledPairs(FabricIndex index, List<Integer> ring) {
        int cabled = 0;
        for (int i = 0; i + 1 < ring.size(); i++) {
            if (linked(index, ring.get(i), ring.get(i + 1))) {
                cabled++;
            }
        }
        return cabled;
    }

    /** The order without the look-ahead: levels interleaved, each walked with its stride. */
    private static List<Integer> plainWalk(FabricIndex index) {
        int[] rank = Ranking.fromLeaves(index);
        List<List<Integer>> walks = new ArrayList<>();
        for (int s = 0; s < index.switchCount(); s++) {
            while (walks.size() <= rank[s]) {
                walks.add(new ArrayList<>());
            }
            walks.get(rank[s]).add(s);
        }
        for (int l = 0; l < walks.size(); l++) {
            List<Integer> level = walks.get(l);
            int stride = (int) Math.ceil(Math.sqrt(level.size()));
            List<Integer> walk = new ArrayList<>();
            for (int start = 0; start < stride; start++) {
                for (int j = start; j < level.size(); j += stride) {
                    walk.add(level.get(j));
                }
            }
            walks.set(l, walk);
        }
        List<Integer> out = new ArrayList<>();
        for (int i = 0; out.size() < index.switchCount(); i++) {
            for (List<Integer> walk : walks) {
                if (i < walk.size()) {
                    out.add(walk.get(i));
                }
            }
        }
        return out;
    }

    @Test
    void consecutiveMembersAreNotCabledToEachOtherWhereTheFabricAllowsIt() {
        for (String spec : specs()) {
            Fabric fabric = PgftGenerator.generate(PgftSpec.parse(spec));
            FabricIndex index = fabric.index();
            List<Integer> ring = new ArrayList<>();
            for (long guid : RingOrder.of(fabric)) {
                ring.add(index.switchId(guid));
            }
            int cabled = cabledPairs(index, ring);
            int plain = cabledPairs(index, plainWalk(index));
            assertThat(cabled).as("%s: cabled consecutive pairs, against %d without the look-ahead", spec, plain)
                    .isLessThanOrEqualTo(plain);
            if (FIXED.contains(spec) && PgftSpec.parse(spec).h() == 3) {
                // a pod's leaves and level-2 switches, and the spines each level-2 switch reaches, never follow each other
                assertThat(cabled).as(spec + " (plain walk: " + plain + ")").isZero();
            }
        }
        // the 768-switch fabric of the fault benchmark: 512 of its 767 consecutive pairs are cabled without the look-ahead
        FabricIndex big = PgftGenerator.generate(PgftSpec.parse("PGFT(3;16,16,16;1,16,16;1,1,1)")).index();
        assertThat(cabledPairs(big, plainWalk(big))).isEqualTo(512);
    }

    @Test
    void withinALevelMembersStayWithinTheWindowOfTheirStrideWalkPosition() {
        for (String spec : specs()) {
            Fabric fabric = PgftGenerator.generate(PgftSpec.parse(spec));
            FabricIndex index = fabric.index();
            int[] rank = Ranking.fromLeaves(index);
            List<Long> ring = RingOrder.of(fabric);
            List<List<Integer>> canonical = new ArrayList<>();
            List<List<Integer>> inRing = new ArrayList<>();
            for (int s = 0; s < index.switchCount(); s++) {
                while (canonical.size() <= rank[s]) {
                    canonical.add(new ArrayList<>());
                    inRing.add(new ArrayList<>());
                }
                canonical.get(rank[s]).add(s);
            }
            for (long guid : ring) {
                int s = index.switchId(guid);
                inRing.get(rank[s]).add(s);
            }
            for (int l = 0; l < canonical.size(); l++) {
                List<Integer> level = canonical.get(l);
                int m = level.size();
                int stride = (int) Math.ceil(Math.sqrt(m));
                List<Integer> walk = new ArrayList<>(m);
                for (int start = 0; start < stride; start++) {
                    for (int j = start; j < m; j += stride) {
                        walk.add(level.get(j));
                    }
                }
                for (int k = 0; k < m; k++) {
                    int shift = Math.abs(walk.indexOf(inRing.get(l).get(k)) - k);
                    assertThat(shift).as("%s level %d member %d", spec, l, k).isLessThanOrEqualTo(RingOrder.WINDOW);
                }
            }
        }
    }
}
