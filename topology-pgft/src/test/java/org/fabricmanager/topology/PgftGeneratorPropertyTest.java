package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.testing.TestFabrics;
import org.junit.jupiter.api.Test;

/**
 * The canonical generator on many PGFTs (1 to 3 levels, w > 1, p > 1, slimmed and full): counts
 * per level match the formulas, every port is within radix and used once, every node hangs on
 * exactly one leaf at its canonical port, and parallel-link multiplicities equal p_l.
 */
class PgftGeneratorPropertyTest {

    @Test
    void generatedFabricsHaveTheShapeOfTheirSpec() {
        int slimmed = 0;
        int full = 0;
        for (PgftSpec spec : TestFabrics.manySpecs()) {
            check(spec);
            if (spec.isFullBisection()) {
                full++;
            } else {
                slimmed++;
            }
        }
        assertThat(slimmed).as("slimmed specs covered").isGreaterThan(10);
        assertThat(full).as("full specs covered").isGreaterThan(5);
    }

    private static void check(PgftSpec spec) {
        String what = spec.toString();
        Fabric fabric = PgftGenerator.generate(spec);
        int h = spec.h();
        assertThat(fabric.pgft()).as(what).contains(spec);
        assertThat(fabric.nodes()).as(what).hasSize(spec.nodeCount());
        assertThat(fabric.links()).as(what).hasSize(spec.totalLinkCount());

        // per-level switch counts and radix, from the GUIDs
        int[] perLevel = new int[h + 1];
        Map<Long, Integer> levelOf = new HashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            int l = (int) ((s.guid() - PgftGenerator.SWITCH_GUID_BASE) >>> 32);
            int idx = (int) (s.guid() & 0xFFFF_FFFFL);
            assertThat(l).as(what).isBetween(1, h);
            assertThat(s.name()).isEqualTo("s" + l + "-" + idx);
            assertThat(s.ports()).as(what + " " + s.name()).isEqualTo(spec.radix(l));
            perLevel[l]++;
            levelOf.put(s.guid(), l);
        }
        for (int l = 1; l <= h; l++) {
            int expected = 1;
            for (int k = l + 1; k <= h; k++) {
                expected *= spec.m(k);
            }
            for (int k = 1; k <= l; k++) {
                expected *= spec.w(k);
            }
            assertThat(perLevel[l]).as(what + " level " + l).isEqualTo(expected).isEqualTo(spec.switchCount(l));
        }

        // ports within radix, used once; links per level; multiplicities
        Set<PortRef> used = new HashSet<>();
        int[] linksDown = new int[h + 1];
        Map<String, Integer> parallel = new HashMap<>();
        Map<Long, Long> leafOfNode = new HashMap<>();
        for (Link link : fabric.links()) {
            assertThat(used.add(new PortRef(link.a(), link.aPort()))).as(what + " port reused " + link).isTrue();
            assertThat(used.add(new PortRef(link.b(), link.bPort()))).as(what + " port reused " + link).isTrue();
            for (long end : new long[] {link.a(), link.b()}) {
                int port = end == link.a() ? link.aPort() : link.bPort();
                if (levelOf.containsKey(end)) {
                    assertThat(port).as(what).isBetween(1, spec.radix(levelOf.get(end)));
                } else {
                    assertThat(port).as(what).isEqualTo(1);
                }
            }
            boolean aSwitch = levelOf.containsKey(link.a());
            boolean bSwitch = levelOf.containsKey(link.b());
            assertThat(aSwitch || bSwitch).as(what + " node-to-node " + link).isTrue();
            if (aSwitch && bSwitch) {
                int la = levelOf.get(link.a());
                int lb = levelOf.get(link.b());
                assertThat(Math.abs(la - lb)).as(what + " " + link).isEqualTo(1);
                linksDown[Math.max(la, lb)]++;
                parallel.merge(link.normalized().a() + "-" + link.normalized().b(), 1, Integer::sum);
            } else {
                long sw = aSwitch ? link.a() : link.b();
                long node = aSwitch ? link.b() : link.a();
                assertThat(levelOf.get(sw)).as(what + " node on non-leaf " + link).isEqualTo(1);
                assertThat(leafOfNode.put(node, sw)).as(what + " node with two links").isNull();
                int d = (int) (node - PgftGenerator.NODE_GUID_BASE);
                int leafPort = aSwitch ? link.aPort() : link.bPort();
                assertThat(sw).isEqualTo(PgftGenerator.switchGuid(1, d / spec.m(1)));
                assertThat(leafPort).isEqualTo(1 + d % spec.m(1));
                linksDown[1]++;
            }
        }
        assertThat(leafOfNode).as(what + " every node on one leaf").hasSize(spec.nodeCount());
        for (int l = 1; l <= h; l++) {
            assertThat(linksDown[l]).as(what + " links into level " + l).isEqualTo(spec.linkCount(l));
        }
        for (Map.Entry<String, Integer> e : parallel.entrySet()) {
            long a = Long.parseLong(e.getKey().substring(0, e.getKey().indexOf('-')));
            long b = Long.parseLong(e.getKey().substring(e.getKey().indexOf('-') + 1));
            int upper = Math.max(levelOf.get(a), levelOf.get(b));
            assertThat(e.getValue()).as(what + " parallel links into level " + upper).isEqualTo(spec.p(upper));
        }
        // each lower switch has w_{l+1} distinct parents
        Map<Long, Set<Long>> parents = new HashMap<>();
        for (String key : parallel.keySet()) {
            long a = Long.parseLong(key.substring(0, key.indexOf('-')));
            long b = Long.parseLong(key.substring(key.indexOf('-') + 1));
            long lower = levelOf.get(a) < levelOf.get(b) ? a : b;
            parents.computeIfAbsent(lower, k -> new HashSet<>()).add(lower == a ? b : a);
        }
        for (FabricSwitch s : fabric.switches()) {
            int l = levelOf.get(s.guid());
            if (l < h) {
                assertThat(parents.get(s.guid())).as(what + " parents of " + s.name()).hasSize(spec.w(l + 1));
            }
        }
        // FabricSummary sees the same levels
        FabricSummary summary = FabricSummary.of(fabric);
        assertThat(summary.levels()).as(what).hasSize(h);
        for (int l = 1; l <= h; l++) {
            assertThat(summary.levels().get(l - 1).switches()).isEqualTo(spec.switchCount(l));
            assertThat(summary.levels().get(l - 1).linksDown()).isEqualTo(spec.linkCount(l));
        }
    }
}
