package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.testing.TestFabrics;
import org.junit.jupiter.api.Test;

/** Degradation: deterministic per seed, exact removal counts, only what was asked for. */
class DegraderTest {
    private static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;4,4,4;1,4,2;1,1,2)");
    private final Fabric fabric = PgftGenerator.generate(SPEC);

    @Test
    void sameSeedGivesTheSameFabricAndOtherSeedsDiffer() {
        Set<Set<Link>> distinct = new HashSet<>();
        for (long seed = 1; seed <= 20; seed++) {
            DegradationPlan plan = DegradationPlan.random(0.2, 3, seed);
            Fabric once = Degrader.degrade(fabric, plan);
            Fabric again = Degrader.degrade(PgftGenerator.generate(SPEC), plan);
            assertThat(again).as("seed " + seed).isEqualTo(once);
            assertThat(FabricJson.toJson(again)).isEqualTo(FabricJson.toJson(once));
            distinct.add(new HashSet<>(once.links()));
        }
        assertThat(distinct).as("20 seeds, 20 different fabrics").hasSize(20);
    }

    @Test
    void removesExactlyTheAskedNumbersForManySpecsAndSeeds() {
        for (PgftSpec spec : TestFabrics.manySpecs()) {
            Fabric f = PgftGenerator.generate(spec);
            int nonLeaf = spec.totalSwitchCount() - spec.switchCount(1);
            for (long seed = 1; seed <= 5; seed++) {
                double fraction = 0.1 * seed;
                int switches = (int) Math.min(nonLeaf, seed - 1);
                String what = spec + " seed " + seed;
                Fabric d = Degrader.degrade(f, DegradationPlan.random(fraction, switches, seed));
                assertThat(d.switches()).as(what).hasSize(f.switches().size() - switches);
                int switchLinksAfterSwitches = switchLinks(f.withoutSwitches(removedSwitches(f, d)));
                int expectedRemoved = (int) Math.round(fraction * switchLinksAfterSwitches);
                assertThat(switchLinks(d)).as(what).isEqualTo(switchLinksAfterSwitches - expectedRemoved);
                // leaves and nodes are never removed at random, nor node links
                assertThat(d.nodes()).as(what).hasSize(f.nodes().size());
                for (FabricSwitch s : f.switches()) {
                    if (s.name().startsWith("s1-")) {
                        assertThat(d.isSwitch(s.guid())).as(what + " leaf kept").isTrue();
                    }
                }
                assertThat(d.links().size() - switchLinks(d)).as(what + " node links kept").isEqualTo(spec.nodeCount());
                assertThat(f.links()).as(what + " nothing added").containsAll(d.links());
                assertThat(d.pgft()).contains(spec);
            }
        }
    }

    @Test
    void removesGivenSwitchesAndLinks() {
        long spine = PgftGenerator.switchGuid(3, 5);
        Link cable = new Link(PgftGenerator.switchGuid(1, 0), 5, PgftGenerator.switchGuid(2, 0), 1);
        Link reversed = new Link(cable.b(), cable.bPort(), cable.a(), cable.aPort());
        Fabric d = Degrader.degrade(fabric, new DegradationPlan(0, 0, 1, List.of(spine), List.of(reversed)));
        assertThat(d.isSwitch(spine)).isFalse();
        assertThat(d.links()).doesNotContain(cable);
        assertThat(d.links()).noneMatch(l -> l.a() == spine || l.b() == spine);
        assertThat(fabric.links().size() - d.links().size()).isEqualTo(1 + SPEC.m(3) * SPEC.p(3));
    }

    @Test
    void emptyPlanReturnsTheFabricItself() {
        assertThat(Degrader.degrade(fabric, DegradationPlan.random(0, 0, 9))).isSameAs(fabric);
    }

    @Test
    void rejectsImpossiblePlans() {
        assertThatThrownBy(() -> DegradationPlan.random(1.5, 0, 1)).hasMessageContaining("outside [0, 1]");
        assertThatThrownBy(() -> DegradationPlan.random(0, -1, 1)).hasMessageContaining("negative switch count");
        assertThatThrownBy(() -> Degrader.degrade(fabric, DegradationPlan.random(0, 1000, 1)))
                .hasMessageContaining("asked to remove 1000 non-leaf switches but the fabric has only 24");
        assertThatThrownBy(() -> Degrader.degrade(fabric, new DegradationPlan(0, 0, 1, List.of(42L), List.of())))
                .hasMessageContaining("no switch with GUID 0x000000000000002a");
        Link bogus = new Link(PgftGenerator.switchGuid(1, 0), 1, PgftGenerator.switchGuid(2, 0), 1);
        assertThatThrownBy(() -> Degrader.degrade(fabric, new DegradationPlan(0, 0, 1, List.of(), List.of(bogus))))
                .hasMessageContaining("no link " + bogus);
    }

    private static List<Long> removedSwitches(Fabric before, Fabric after) {
        return before.switches().stream().map(FabricSwitch::guid).filter(g -> !after.isSwitch(g)).toList();
    }

    private static int switchLinks(Fabric f) {
        int count = 0;
        for (Link l : f.links()) {
            if (f.isSwitch(l.a()) && f.isSwitch(l.b())) {
                count++;
            }
        }
        return count;
    }
}
