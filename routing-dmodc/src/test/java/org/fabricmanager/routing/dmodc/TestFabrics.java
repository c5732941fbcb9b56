package org.fabricmanager.routing.dmodc;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;

/**
 * The generated fabrics the property tests run on: small, but covering every shape parameter. Public
 * for the tests of the Dmodc sub-packages.
 */
public final class TestFabrics {
    /** 1 to 4 levels; w > 1 and p > 1 at various levels; full and slimmed bisection. */
    public static final List<String> SPECS = List.of(
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

    /**
     * Fabrics with enough leaves (64 to 128) that most cost rows have a dominant cost, so that the
     * engine's profile-based paths (rather than its whole-row fallback) do the work.
     */
    public static final List<String> MEDIUM_SPECS = List.of(
            "PGFT(3;4,4,16;1,4,4;1,1,1)",
            "PGFT(3;2,4,16;1,4,2;1,2,1)",
            "PGFT(2;4,64;1,8;1,1)",
            "PGFT(2;3,96;1,6;1,2)",
            "PGFT(3;4,8,16;1,4,4;1,1,2)",
            "PGFT(4;2,4,4,8;1,2,2,2;1,1,2,1)");

    private TestFabrics() {
    }

    public static Fabric intact(String spec) {
        return PgftGenerator.generate(PgftSpec.parse(spec));
    }

    /** A degraded fabric and how it was made, for failure messages. */
    public record Degraded(String description, Fabric fabric) {
        @Override
        public String toString() {
            return description;
        }
    }

    /**
     * Randomly degraded versions of the multi-level specs: for each seed, a link fraction up to 20%
     * and up to three non-leaf switches, both drawn from the seed.
     */
    public static List<Degraded> degraded(int seedsPerSpec) {
        return degraded(SPECS, seedsPerSpec);
    }

    public static List<Degraded> degraded(List<String> specs, int seedsPerSpec) {
        List<Degraded> out = new ArrayList<>();
        for (String text : specs) {
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

    /**
     * Fabrics no generator would make, to exercise the general rules: a degraded PGFT whose
     * switches get two spare ports each, then random extra cables between switches (same-level,
     * leaf-to-leaf, level-skipping), node indices shuffled with gaps, and a few nodes unplugged.
     */
    public static List<Degraded> irregular(int count) {
        return irregular(SPECS.subList(1, SPECS.size()), count);
    }

    public static List<Degraded> irregular(List<String> specs, int count) {
        List<Degraded> out = new ArrayList<>();
        for (int seed = 1; seed <= count; seed++) {
            Random random = new Random(seed);
            String text = specs.get(random.nextInt(specs.size()));
            Fabric base = Degrader.degrade(intact(text), DegradationPlan.random(random.nextInt(15) / 100.0, 0, seed));
            List<FabricSwitch> switches = new ArrayList<>();
            for (FabricSwitch sw : base.switches()) {
                switches.add(new FabricSwitch(sw.guid(), sw.name(), sw.ports() + 2));
            }
            List<Link> links = new ArrayList<>();
            List<EndNode> nodes = new ArrayList<>();
            List<Integer> indices = new ArrayList<>();
            for (int i = 0; i < base.nodes().size(); i++) {
                indices.add(i * 2 + random.nextInt(2));
            }
            Collections.shuffle(indices, random);
            for (int i = 0; i < base.nodes().size(); i++) {
                EndNode n = base.nodes().get(i);
                nodes.add(new EndNode(n.guid(), n.name(), indices.get(i)));
            }
            for (Link l : base.links()) {
                boolean nodeLink = base.isNode(l.a()) || base.isNode(l.b());
                if (!nodeLink || random.nextInt(20) != 0) {
                    links.add(l);
                }
            }
            int extra = 1 + random.nextInt(switches.size());
            boolean[][] used = new boolean[switches.size()][2];
            for (int e = 0; e < extra; e++) {
                int a = random.nextInt(switches.size());
                int b = random.nextInt(switches.size());
                int pa = random.nextInt(2);
                int pb = random.nextInt(2);
                if (a == b || used[a][pa] || used[b][pb]) {
                    continue;
                }
                used[a][pa] = true;
                used[b][pb] = true;
                FabricSwitch sa = switches.get(a);
                FabricSwitch sb = switches.get(b);
                links.add(new Link(sa.guid(), sa.ports() - 1 + pa, sb.guid(), sb.ports() - 1 + pb));
            }
            out.add(new Degraded(text + " made irregular, seed " + seed, new Fabric(null, switches, nodes, links)));
        }
        return out;
    }
}
