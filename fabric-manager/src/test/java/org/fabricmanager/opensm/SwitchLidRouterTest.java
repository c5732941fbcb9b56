package org.fabricmanager.opensm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.LidPlan;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The kept routes equal a fresh {@link SwitchLidRoutes#compute} after every step of random link losses and returns. */
class SwitchLidRouterTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void keptRoutesEqualFreshOnesAfterEveryChange(long seed) {
        Fabric whole = PgftGenerator.generate(PgftSpec.parse(seed % 2 == 0 ? "PGFT(3;4,4,4;1,4,4;1,1,1)"
                : "PGFT(3;4,4,8;1,4,2;1,2,2)"));
        List<Link> switchLinks = new ArrayList<>();
        for (Link l : whole.links()) {
            if (whole.isSwitch(l.a()) && whole.isSwitch(l.b())) {
                switchLinks.add(l);
            }
        }
        Random random = new Random(seed);
        List<Link> down = new ArrayList<>();
        SwitchLidRouter router = new SwitchLidRouter();
        int kept = 0;
        for (int step = 0; step < 60; step++) {
            int many = 1 + (random.nextInt(5) == 0 ? random.nextInt(12) : 0);
            for (int k = 0; k < many; k++) {
                if (!down.isEmpty() && random.nextInt(3) == 0) {
                    down.remove(random.nextInt(down.size()));
                } else {
                    Link l = switchLinks.get(random.nextInt(switchLinks.size()));
                    if (!down.contains(l)) {
                        down.add(l);
                    }
                }
            }
            Fabric fabric = whole.withoutLinks(down);
            FabricIndex index = fabric.index();
            int[] lids = lids(fabric);
            byte[][] kept0 = router.routes(index, lids);
            byte[][] fresh = SwitchLidRoutes.compute(index, lids);
            assertThat(kept0).as("step %d, %d links down", step, down.size()).isDeepEqualTo(fresh);
            kept += index.switchCount() - router.searched();
        }
        assertThat(kept).as("targets whose distances were kept").isPositive();
    }

    private static int[] lids(Fabric fabric) {
        LidPlan plan = LidPlan.sequential(fabric);
        FabricIndex index = fabric.index();
        int[] lids = new int[index.switchCount()];
        for (int s = 0; s < lids.length; s++) {
            lids[s] = plan.lid(index.switchGuid(s)).orElse(0);
        }
        return lids;
    }
}
