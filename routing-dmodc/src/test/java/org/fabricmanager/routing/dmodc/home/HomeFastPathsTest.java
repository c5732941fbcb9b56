package org.fabricmanager.routing.dmodc.home;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The pass's fast ways ({@link HomePlanes}: a leaf's row tiled and copied, one destination per slot; {@link
 * ExtraSpread}: a leaf's entries at a level-1 switch written eight at a time) give the tables of its rules written
 * plainly ({@link PlainHome}), entry by entry, on one and two threads, on randomly degraded fabrics of shapes that
 * take each way and those that do not: as many nodes per leaf as uplinks or more or fewer, leaves of 4, 8, 16 and 24
 * nodes, 1-10% of the links removed and up to three switches dead. Seeds are in the failure messages.
 */
class HomeFastPathsTest {
    private static final DmodcEngine DMODC = new DmodcEngine(1);
    private static final HomeDmodcEngine ONE = new HomeDmodcEngine(1);
    private static final HomeDmodcEngine TWO = new HomeDmodcEngine(2);
    private static final List<String> SPECS = List.of(
            "PGFT(3;8,8,8;1,8,8;1,1,1)",
            "PGFT(3;8,8,4;1,8,8;1,1,1)",
            "PGFT(3;16,4,8;1,4,4;1,1,1)",
            "PGFT(3;4,4,8;1,4,4;1,1,1)",
            "PGFT(3;16,16,4;1,16,16;1,1,1)",
            "PGFT(3;24,8,4;1,8,8;1,1,1)",
            "PGFT(2;8,16;1,8;1,1)");

    @AfterAll
    static void close() {
        DMODC.close();
        ONE.close();
        TWO.close();
    }

    @Test
    void fastWaysGiveThePlainRulesTablesOnRandomDegradations() {
        SplittableRandom random = new SplittableRandom(53);
        long moved = 0;
        for (int i = 0; i < 42; i++) {
            String spec = SPECS.get(i % SPECS.size());
            double fraction = 0.01 + random.nextInt(10) / 100.0;
            int dead = random.nextInt(4);
            long seed = random.nextLong(1, 1_000_000);
            String what = String.format(Locale.ROOT, "%s, %.2f of links, %d switches, seed %d", spec, fraction, dead,
                    seed);
            FabricIndex index = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)),
                    DegradationPlan.random(fraction, dead, seed)).index();
            int[][] expected = PlainHome.tables(index, DMODC.compute(index));
            ForwardingTables dmodc = DMODC.route(index).tables();
            ForwardingTables one = ONE.route(index).tables();
            ForwardingTables two = TWO.route(index).tables();
            for (int s = 0; s < expected.length; s++) {
                for (int d = 0; d < expected[s].length; d++) {
                    assertThat(one.port(s, d)).as("%s: switch %d, destination %d", what, s, d)
                            .isEqualTo(expected[s][d]);
                    moved += expected[s][d] != dmodc.port(s, d) ? 1 : 0;
                }
            }
            assertThat(two.sameAs(one)).as("%s: two threads as one", what).isTrue();
        }
        assertThat(moved).as("entries the rules moved off Dmodc's").isPositive();
    }
}
