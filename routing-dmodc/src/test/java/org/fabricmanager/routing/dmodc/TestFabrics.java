package org.fabricmanager.routing.dmodc;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;

/** The generated fabrics the property tests run on: small, but covering every shape parameter. */
final class TestFabrics {
    /** 1 to 4 levels; w > 1 and p > 1 at various levels; full and slimmed bisection. */
    static final List<String> SPECS = List.of(
            "PGFT(1;8;1;1)",
            "PGFT(2;4,4;1,2;1,1)",
            "PGFT(2;4,8;1,4;1,1)",
            "PGFT(2;3,4;1,3;1,2)",
            "PGFT(2;6,5;1,3;1,1)",
            "PGFT(3;2,2,3;1,2,2;1,2,1)",
            "PGFT(3;4,4,4;1,4,4;1,1,1)",
            "PGFT(3;4,4,2;1,2,2;1,1,1)",
            "PGFT(3;4,2,3;1,2,2;1,2,2)",
            "PGFT(3;3,3,4;1,3,2;1,1,2)",
            "PGFT(3;6,4,4;1,3,2;1,2,1)",
            "PGFT(3;4,3,5;1,4,3;1,1,1)",
            "PGFT(4;2,2,2,2;1,2,2,2;1,1,1,1)",
            "PGFT(4;2,3,2,2;1,2,1,2;1,1,2,1)");

    private TestFabrics() {
    }

    static Fabric intact(String spec) {
        return PgftGenerator.generate(PgftSpec.parse(spec));
    }

    /** A degraded fabric and how it was made, for failure messages. */
    record Degraded(String description, Fabric fabric) {
        @Override
        public String toString() {
            return description;
        }
    }

    /**
     * Randomly degraded versions of the multi-level specs: for each seed, a link fraction up to 20%
     * and up to three non-leaf switches, both drawn from the seed.
     */
    static List<Degraded> degraded(int seedsPerSpec) {
        List<Degraded> out = new ArrayList<>();
        for (String text : SPECS) {
            PgftSpec spec = PgftSpec.parse(text);
            if (spec.h() < 2) {
                continue;
            }
            Fabric fabric = PgftGenerator.generate(spec);
            int nonLeaf = spec.totalSwitchCount() - spec.switchCount(1);
            for (int seed = 1; seed <= seedsPerSpec; seed++) {
                double fraction = (seed * 7 % 21) / 100.0;
                int switches = Math.min(nonLeaf - 1, seed % 4);
                DegradationPlan plan = DegradationPlan.random(fraction, switches, seed);
                out.add(new Degraded(text + " minus " + fraction + " of links and " + switches + " switches, seed " + seed,
                        Degrader.degrade(fabric, plan)));
            }
        }
        return out;
    }
}
