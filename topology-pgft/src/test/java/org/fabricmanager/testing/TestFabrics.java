package org.fabricmanager.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;

/**
 * The fabrics every module's tests run on: lists of PGFT specs (hand-picked and seeded random), the
 * canonical fabric of a spec, seeded degradations of it, irregular fabrics no generator would make, and
 * fabric surgery (relabel, rewire). Each list keeps the specs and seeds of the tests that used it, so
 * that what they prove does not change; everything is deterministic for its seed, which failure
 * messages name ({@link #describe}, {@link Degraded}).
 */
public final class TestFabrics {
    private TestFabrics() {
    }

    // ---- spec lists ------------------------------------------------------------------------------

    /** The routing property tests' small PGFTs (engines, analysis): 2 and 3 levels, w > 1, p > 1, slimmed and full bisection. */
    public static final List<String> ROUTING_SPECS = List.of(
            "PGFT(2;4,4;1,4;1,1)",
            "PGFT(2;4,6;1,2;1,2)",
            "PGFT(2;6,4;1,3;1,1)",
            "PGFT(3;2,2,3;1,2,2;1,2,1)",
            "PGFT(3;4,4,4;1,4,4;1,1,1)",
            "PGFT(3;4,4,3;1,2,4;1,2,1)",
            "PGFT(3;3,3,4;1,3,3;1,1,1)",
            "PGFT(3;4,2,3;1,2,2;1,1,2)",
            "PGFT(3;4,4,6;1,4,2;1,2,2)");

    /** The Dmodc engine tests' shapes, covering every shape parameter: 1 to 4 levels; w > 1 and p > 1 at various levels; full and slimmed bisection. */
    public static final List<String> DMODC_SPECS = List.of(
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

    // ---- topology tests: PgftSpec lists and fabric surgery --------------------------------------

    /** Hand-picked shapes: 1 to 3 levels, full and slimmed, w > 1 and p > 1. */
    public static List<PgftSpec> fixedSpecs() {
        List<PgftSpec> out = new ArrayList<>();
        for (String s : new String[] {
            "PGFT(1;5;1;1)",
            "PGFT(2;4,4;1,4;1,1)",
            "PGFT(2;3,4;1,2;1,2)",
            "PGFT(2;2,3;1,1;1,3)",
            "PGFT(3;2,2,3;1,2,2;1,2,1)",
            "PGFT(3;4,4,4;1,2,2;1,1,1)",
            "PGFT(3;2,2,2;1,2,2;1,2,2)",
            "PGFT(3;3,2,2;1,3,1;1,1,2)",
            "PGFT(3;4,4,2;1,4,4;1,1,1)",
        }) {
            out.add(PgftSpec.parse(s));
        }
        return out;
    }

    /** {@code count} random specs of 1 to 3 levels with at most {@code maxNodes} nodes, deterministic for {@code seed}. */
    public static List<PgftSpec> randomSpecs(long seed, int count, int maxNodes) {
        Random random = new Random(seed);
        List<PgftSpec> out = new ArrayList<>();
        while (out.size() < count) {
            int h = 1 + random.nextInt(3);
            int[] m = new int[h];
            int[] w = new int[h];
            int[] p = new int[h];
            for (int l = 0; l < h; l++) {
                m[l] = 1 + random.nextInt(4);
                w[l] = l == 0 ? 1 : 1 + random.nextInt(3);
                p[l] = l == 0 ? 1 : 1 + random.nextInt(2);
            }
            PgftSpec spec = PgftSpec.of(m, w, p);
            if (spec.nodeCount() <= maxNodes && spec.totalSwitchCount() <= 200) {
                out.add(spec);
            }
        }
        return out;
    }

    /**
     * The canonical fabric of {@code spec} degraded for {@code seed}: a link fraction of 0.1 times
     * {@code seed % linkSteps}, and {@code seed % 3} non-leaf switches (at most all of them) removed.
     */
    public static Fabric seededDegradation(PgftSpec spec, Fabric fabric, long seed, int linkSteps) {
        int nonLeaf = spec.totalSwitchCount() - spec.switchCount(1);
        return Degrader.degrade(fabric,
                DegradationPlan.random(0.1 * (seed % linkSteps), (int) Math.min(nonLeaf, seed % 3), seed));
    }

    /** Both lists. */
    public static List<PgftSpec> manySpecs() {
        List<PgftSpec> out = new ArrayList<>(fixedSpecs());
        out.addAll(randomSpecs(42, 60, 96));
        return out;
    }

    /**
     * The same fabric with every GUID replaced by a random vendor-looking one (not canonical), names,
     * indices and ports kept: a canonical fabric as a real cluster would report it.
     */
    public static Fabric relabel(Fabric fabric, long seed) {
        Random random = new Random(seed);
        Map<Long, Long> map = new HashMap<>();
        Set<Long> used = new HashSet<>();
        List<Long> all = new ArrayList<>();
        for (FabricSwitch s : fabric.switches()) {
            all.add(s.guid());
        }
        for (EndNode e : fabric.nodes()) {
            all.add(e.guid());
        }
        for (long guid : all) {
            long fresh;
            do {
                fresh = 0x0002c90300000000L | (random.nextLong() & 0xFFFF_FFFFL);
            } while (!used.add(fresh));
            map.put(guid, fresh);
        }
        List<FabricSwitch> switches = new ArrayList<>();
        for (FabricSwitch s : fabric.switches()) {
            switches.add(new FabricSwitch(map.get(s.guid()), s.name(), s.ports()));
        }
        List<EndNode> nodes = new ArrayList<>();
        for (EndNode e : fabric.nodes()) {
            nodes.add(new EndNode(map.get(e.guid()), e.name(), e.index()));
        }
        List<Link> links = new ArrayList<>();
        for (Link l : fabric.links()) {
            links.add(new Link(map.get(l.a()), l.aPort(), map.get(l.b()), l.bPort()));
        }
        return new Fabric(null, switches, nodes, links);
    }

    /** {@code fabric} with {@code removed} links taken out and {@code added} links put in. */
    public static Fabric rewire(Fabric fabric, List<Link> removed, List<Link> added) {
        Fabric without = fabric.withoutLinks(removed);
        List<Link> links = new ArrayList<>(without.links());
        links.addAll(added);
        return new Fabric(fabric.pgft().orElse(null), fabric.switches(), fabric.nodes(), links);
    }

    /** The link at {@code guid}'s {@code port}. */
    public static Link linkAt(Fabric fabric, long guid, int port) {
        for (Link l : fabric.links()) {
            if (l.touches(guid, port)) {
                return l;
            }
        }
        throw new AssertionError("no link at " + Guids.format(guid) + ":" + port);
    }

    public static long sw(int level, int idx) {
        return PgftGenerator.switchGuid(level, idx);
    }

    public static long node(int d) {
        return PgftGenerator.nodeGuid(d);
    }

    // ---- routing tests: canonical fabrics and seeded degradations ------------------------------

    /** The canonical fabric of {@code spec}. */
    public static Fabric canonical(String spec) {
        return PgftGenerator.generate(PgftSpec.parse(spec));
    }

    /**
     * A seeded degradation of {@code spec}: up to 20% of the switch-to-switch links and up to
     * three non-leaf switches removed (fewer on fabrics with few switches).
     */
    public static Fabric degraded(String spec, long seed) {
        Fabric fabric = canonical(spec);
        Random random = new Random(seed);
        double fraction = random.nextInt(21) / 100.0;
        int nonLeaves = fabric.switches().size() - fabric.index().leafCount();
        int switches = random.nextInt(Math.min(3, nonLeaves / 3) + 1);
        return Degrader.degrade(fabric, DegradationPlan.random(fraction, switches, seed));
    }

    /** Describes a degraded case for failure messages. */
    public static String describe(String spec, long seed) {
        return spec + " degraded with seed " + seed;
    }

    /** A degraded fabric and how it was made, for failure messages. */
    public record Degraded(String description, Fabric fabric) {
        @Override
        public String toString() {
            return description;
        }
    }

    /**
     * Randomly degraded versions of the multi-level {@link #DMODC_SPECS}: for each seed, a link fraction up to 20%
     * and up to three non-leaf switches, both drawn from the seed.
     */
    public static List<Degraded> degradations(int seedsPerSpec) {
        return degradations(DMODC_SPECS, seedsPerSpec);
    }

    public static List<Degraded> degradations(List<String> specs, int seedsPerSpec) {
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
        return irregular(DMODC_SPECS.subList(1, DMODC_SPECS.size()), count);
    }

    public static List<Degraded> irregular(List<String> specs, int count) {
        List<Degraded> out = new ArrayList<>();
        for (int seed = 1; seed <= count; seed++) {
            Random random = new Random(seed);
            String text = specs.get(random.nextInt(specs.size()));
            Fabric base = Degrader.degrade(canonical(text), DegradationPlan.random(random.nextInt(15) / 100.0, 0, seed));
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
