package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/** Generated specs and fabric surgery shared by the tests. */
final class TestFabrics {
    private TestFabrics() {
    }

    /** Hand-picked shapes: 1 to 3 levels, full and slimmed, w > 1 and p > 1. */
    static List<PgftSpec> fixedSpecs() {
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
    static List<PgftSpec> randomSpecs(long seed, int count, int maxNodes) {
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
    static Fabric seededDegradation(PgftSpec spec, Fabric fabric, long seed, int linkSteps) {
        int nonLeaf = spec.totalSwitchCount() - spec.switchCount(1);
        return Degrader.degrade(fabric,
                DegradationPlan.random(0.1 * (seed % linkSteps), (int) Math.min(nonLeaf, seed % 3), seed));
    }

    /** Both lists. */
    static List<PgftSpec> manySpecs() {
        List<PgftSpec> out = new ArrayList<>(fixedSpecs());
        out.addAll(randomSpecs(42, 60, 96));
        return out;
    }

    /**
     * The same fabric with every GUID replaced by a random vendor-looking one (not canonical), names,
     * indices and ports kept: a canonical fabric as a real cluster would report it.
     */
    static Fabric relabel(Fabric fabric, long seed) {
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
    static Fabric rewire(Fabric fabric, List<Link> removed, List<Link> added) {
        Fabric without = fabric.withoutLinks(removed);
        List<Link> links = new ArrayList<>(without.links());
        links.addAll(added);
        return new Fabric(fabric.pgft().orElse(null), fabric.switches(), fabric.nodes(), links);
    }

    /** The link at {@code guid}'s {@code port}. */
    static Link linkAt(Fabric fabric, long guid, int port) {
        for (Link l : fabric.links()) {
            if (l.touches(guid, port)) {
                return l;
            }
        }
        throw new AssertionError("no link at " + Guids.format(guid) + ":" + port);
    }

    static long sw(int level, int idx) {
        return PgftGenerator.switchGuid(level, idx);
    }

    static long node(int d) {
        return PgftGenerator.nodeGuid(d);
    }
}
