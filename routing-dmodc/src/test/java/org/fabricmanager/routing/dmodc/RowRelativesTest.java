package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.plain.PlainDmodc;
import org.fabricmanager.routing.dmodc.preprocess.CostDivider;
import org.fabricmanager.routing.dmodc.preprocess.Neighbours;
import org.fabricmanager.routing.dmodc.preprocess.Ranks;
import org.fabricmanager.routing.dmodc.reuse.RowRelatives;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Rows copied from a relative ({@link RowRelatives}) and recomputed where the two differ. The engine is made to
 * look for relatives among all leaves (the fabrics here are too small for their sets to be busy enough
 * otherwise), and its tables must still be those of {@link PlainDmodc} entry by entry, on one and two
 * threads: degraded PGFTs with pods of up to 32 switches, irregular fabrics, scattered node indices. Which
 * switches are relatives is checked on its own: same ports group by group, and the chunks to recompute cover
 * the own leaves of both.
 */
class RowRelativesTest {
    private static final DmodcEngine ONE = new DmodcEngine(1, true);
    private static final DmodcEngine TWO = new DmodcEngine(2, true);
    private static final RoutingPool POOL = new RoutingPool(2, "test");

    @AfterAll
    static void close() {
        ONE.close();
        TWO.close();
        POOL.close();
    }

    @Test
    void rowsCopiedFromRelativesAreExactlyWhatTheRulesGive() {
        int withRelatives = 0;
        for (Draw draw : draws()) {
            assertSameAsReference(draw);
            withRelatives += relatives(draw.fabric()).count() > 0 ? 1 : 0;
        }
        // the draws must exercise the copies, or the comparison above proves nothing about them
        assertThat(withRelatives).isGreaterThanOrEqualTo(10);
    }

    @Test
    void irregularFabricsStillGetTheRulesPorts() {
        for (TestFabrics.Degraded d : TestFabrics.irregular(6)) {
            assertSameAsReference(new Draw(d.description(), d.fabric()));
        }
    }

    @Test
    void aRelativeSharesItsRepresentativesPortsAndRecomputesBothOwnLeaves() {
        int checked = 0;
        for (Draw draw : draws()) {
            FabricIndex index = draw.fabric().index();
            RowRelatives relatives = relatives(draw.fabric());
            int[] groupStart = index.groupStartArray();
            int[] portStart = index.groupPortStartArray();
            int[] ports = index.groupPortArray();
            for (int s = 0; s < index.switchCount(); s++) {
                int r = relatives.relativeOf(s);
                if (r < 0) {
                    assertThat(relatives.leaves(s)).isNull();
                    continue;
                }
                checked++;
                String what = draw.description() + ", switch " + s + " copying " + r;
                assertThat(relatives.relativeOf(r)).as(what + ": a representative is routed on its own").isNegative();
                assertThat(groupStart[s + 1] - groupStart[s]).as(what).isEqualTo(groupStart[r + 1] - groupStart[r]);
                for (int i = 0; i < groupStart[s + 1] - groupStart[s]; i++) {
                    int gs = groupStart[s] + i;
                    int gr = groupStart[r] + i;
                    assertThat(java.util.Arrays.copyOfRange(ports, portStart[gs], portStart[gs + 1])).as(what)
                            .isEqualTo(java.util.Arrays.copyOfRange(ports, portStart[gr], portStart[gr + 1]));
                }
                long[] leaves = relatives.leaves(s);
                for (int leaf : new int[] {index.leafNumber(s), index.leafNumber(r)}) {
                    assertThat(leaves[leaf >>> 6] >>> leaf & 1).as(what + ": own leaf " + leaf + " recomputed").isEqualTo(1L);
                }
                int found = 0;
                for (int i = relatives.firstRelative(r); i < relatives.firstRelative(r + 1); i++) {
                    found += relatives.relative(i) == s ? 1 : 0;
                }
                assertThat(found).as(what + ": listed under its representative").isEqualTo(1);
            }
        }
        assertThat(checked).isPositive();
    }

    private record Draw(String description, Fabric fabric) {
    }

    /** Degraded PGFTs: small random ones, and a few with pods of 32 switches (a chunk of leaves per pod). */
    private static List<Draw> draws() {
        List<Draw> draws = new ArrayList<>();
        for (int seed = 1; seed <= 24; seed++) {
            Random random = new Random(seed);
            String spec;
            if (seed % 6 == 0) {
                spec = "PGFT(3;2,32,4;1,32," + (2 + random.nextInt(3)) + ";1,1,1)";
            } else {
                spec = "PGFT(3;" + (2 + random.nextInt(4)) + "," + (2 + random.nextInt(7)) + "," + (3 + random.nextInt(14))
                        + ";1," + (2 + random.nextInt(7)) + "," + (1 + random.nextInt(4)) + ";1,"
                        + (random.nextInt(3) == 0 ? 2 : 1) + "," + (1 + random.nextInt(2)) + ")";
            }
            double fraction = (1 + random.nextInt(10)) / 100.0;
            int switches = random.nextInt(2);
            Fabric fabric = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)),
                    DegradationPlan.random(fraction, switches, seed));
            draws.add(new Draw(spec + " minus " + fraction + " of links and " + switches + " switches, seed " + seed, fabric));
        }
        return draws;
    }

    /** The relatives among all leaves (the engine, when forced, looks among those above one shared set). */
    private static RowRelatives relatives(Fabric fabric) {
        FabricIndex index = fabric.index();
        Ranks ranks = Ranks.of(index);
        CostDivider.Result cd = CostDivider.compute(index, ranks, Neighbours.of(index, ranks), POOL);
        boolean[] candidate = new boolean[index.switchCount()];
        for (int s = 0; s < candidate.length; s++) {
            candidate[s] = index.leafNumber(s) != FabricIndex.NONE;
        }
        return RowRelatives.of(index, cd.costs(), cd.dividers(), cd.profiles(), candidate, POOL);
    }

    private static void assertSameAsReference(Draw draw) {
        DegradedLeafRowsPropertyTest.assertSameAsReference(draw.description(), draw.fabric(), ONE, TWO);
    }
}
