package org.fabricmanager.routing.dmodc.weighted;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.routing.dmodc.RefinementProperties;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@code dmodc-weighted} against the plain engine, as properties: on intact fabrics it is Dmodc; on seeded
 * degraded ones every entry is one of Dmodc's candidates (formula (2): so the routes are Dmodc's shortest
 * up*&#47;down* paths, for the same leaf pairs, deadlock-free), the same from two engines of one and two
 * threads; and how its shift and all-to-all maxima compare with Dmodc's, which the refinement does not bound
 * (it lowers the all-to-all maximum where failures doubled links up, and may add a route to the shift maximum).
 */
class WeightedDmodcEngineTest {
    private static final DmodcEngine DMODC = new DmodcEngine(1);
    private static final WeightedDmodcEngine ONE = new WeightedDmodcEngine(1);
    private static final WeightedDmodcEngine TWO = new WeightedDmodcEngine(2);

    @AfterAll
    static void close() {
        DMODC.close();
        ONE.close();
        TWO.close();
    }

    @Test
    void intactFabricsGetDmodcsTables() {
        RefinementProperties.assertIntactTablesAreDmodcs(ONE, WeightedDmodcEngine.NAME, DMODC);
    }

    /**
     * Fabrics degraded as the balance sweep degrades its 4,096-node fabric (5% of the links, no switch): the
     * properties, an all-to-all maximum never above Dmodc's, and a shift maximum at most one route above
     * Dmodc's. One above is what the refinement does on these small fabrics (1 of these 9 cases: 6 against 5,
     * {@code PGFT(3;8,8,8;1,8,8;1,1,1)} seed 2); on the sweep's 4,096-node fabrics it rose from 6 to 7 on 3 of 20.
     */
    @Test
    void sweepLikeDegradationsLowerAllToAllAndKeepShiftWithinOneRoute() {
        long changed = 0;
        int cases = 0;
        for (RefinementProperties.Case c : RefinementProperties.sweepLike()) {
            String what = c.what();
            RefinementProperties.Figures figures = RefinementProperties.check(what, c.index(), DMODC, ONE, TWO);
            assertThat(figures.shift()).as("%s: shift max", what).isLessThanOrEqualTo(figures.dmodcShift() + 1);
            assertThat(figures.allToAll()).as("%s: all-to-all max", what).isLessThanOrEqualTo(figures.dmodcAllToAll());
            changed += figures.changed();
            cases++;
        }
        assertThat(cases).isEqualTo(9);
        assertThat(changed).as("entries moved off Dmodc's choice").isPositive();
    }

    /**
     * Harder degradations (up to 20% of the links and three switches, {@link TestFabrics#degraded}): the
     * properties hold and the all-to-all maximum is never above Dmodc's; the shift maximum stays within two
     * routes of Dmodc's (here 10 against 9, 6 against 5 and 11 against 9 on {@code PGFT(3;8,8,8;1,8,8;1,1,1)}
     * seeds 2 to 4; equal or lower on the others).
     */
    @Test
    void harderDegradationsKeepThePropertiesAndShiftWithinTwoRoutes() {
        for (String spec : List.of("PGFT(3;8,8,8;1,8,8;1,1,1)", "PGFT(3;4,4,16;1,4,4;1,1,1)", "PGFT(2;4,64;1,8;1,1)")) {
            for (long seed = 1; seed <= 4; seed++) {
                FabricIndex index = TestFabrics.degraded(spec, seed).index();
                String what = TestFabrics.describe(spec, seed);
                RefinementProperties.Figures figures = RefinementProperties.check(what, index, DMODC, ONE, TWO);
                assertThat(figures.shift()).as("%s: shift max", what).isLessThanOrEqualTo(figures.dmodcShift() + 2);
                assertThat(figures.allToAll()).as("%s: all-to-all max", what).isLessThanOrEqualTo(figures.dmodcAllToAll());

            }
        }
    }

    @Test
    void reportsAWeightsPhaseAfterTheRoutes() {
        RoutingResult result = ONE.route(TestFabrics.degraded("PGFT(3;4,4,4;1,4,4;1,1,1)", 1).index());
        assertThat(result.timings().phases()).extracting(p -> p.name()).containsSubsequence("routes", "weights",
                "validity");
    }
}
