package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.TableChurn;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.analysis.DeadlockAnalyzer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TracedValidity;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Repair after a fault ({@link DmodcEngine#repair}): on generated PGFTs, intact and degraded, one fault of
 * every kind (a switch at each level, a cable at each level), each element drawn from a fixed seed; the
 * repaired tables are valid, deadlock-free, route every pair the fabric still connects, change only
 * entries whose port is no longer a candidate, at most twice the minimum, are the same whether the costs
 * were updated from the routing or the tables came alone (as {@code route --previous} reads them), move
 * each entry to Dmodc's closed form over its surviving candidates, and a return gives back the tables of the
 * routing repaired from.
 */
class DmodcRepairTest {
    private static final DmodcEngine ENGINE = new DmodcEngine(2);
    private static final RoutingPool POOL = new RoutingPool(1, "test");

    @AfterAll
    static void close() {
        ENGINE.close();
        POOL.close();
    }

    @Test
    void repairsEveryFaultKindValidlyWithinTwiceTheMinimum() {
        int cases = 0;
        List<String> specs = new ArrayList<>(TestFabrics.DMODC_SPECS);
        specs.addAll(TestFabrics.MEDIUM_SPECS);
        for (String spec : specs) {
            int h = PgftSpec.parse(spec).h();
            if (h < 2) {
                continue;
            }
            for (long seed = 1; seed <= 3; seed++) {
                Fabric base = TestFabrics.canonical(spec);
                if (seed == 3) {
                    base = Degrader.degrade(base, DegradationPlan.random(0.05, 0, seed));
                }
                DmodcRouting full = ENGINE.compute(base.index());
                Random random = new Random(seed * 31 + spec.hashCode());
                for (RepairFaults.Fault fault : RepairFaults.everyKind(base, h, random)) {
                    check(spec + " seed " + seed + " " + (seed == 3 ? "degraded 5% " : "") + fault.name(), ENGINE,
                            full, fault.degraded());
                    cases++;
                }
            }
        }
        assertThat(cases).isGreaterThan(150);
    }

    @Test
    void aReturnGivesBackTheTablesRepairedFrom() {
        for (String spec : TestFabrics.MEDIUM_SPECS) {
            Fabric base = TestFabrics.canonical(spec);
            DmodcRouting full = ENGINE.compute(base.index());
            for (RepairFaults.Fault fault : RepairFaults.everyKind(base, PgftSpec.parse(spec).h(), new Random(7))) {
                DmodcRouting repaired = ENGINE.repair(full, fault.degraded().index());
                assertThat(repaired.isRepair()).isTrue();
                DmodcRouting back = ENGINE.repair(full, base.index());
                ForwardingTables tables = back.result().tables();
                assertThat(tables.sameAs(full.result().tables())).as("%s %s", spec, fault.name()).isTrue();
                for (int s = 0; s < tables.switchCount(); s++) {
                    assertThat(tables.sharesRow(s, full.result().tables(), s)).as("%s row %d", spec, s).isTrue();
                }
            }
        }
    }

    @Test
    void aRepairedRoutingIsReroutedFromScratch() {
        Fabric base = TestFabrics.canonical("PGFT(3;4,4,4;1,4,4;1,1,1)");
        DmodcRouting full = ENGINE.compute(base.index());
        RepairFaults.Fault fault = RepairFaults.everyKind(base, 3, new Random(3)).get(1);
        DmodcRouting repaired = ENGINE.repair(full, fault.degraded().index());
        DmodcRouting rerouted = ENGINE.reroute(base.index(), repaired);
        assertThat(rerouted.rowCounts()).isEmpty();
        assertThat(rerouted.result().tables().sameAs(full.result().tables())).isTrue();
    }

    /**
     * Formulas (3) and (4), written plainly: over the candidate groups {@code C} of {@code s} towards the
     * destination's leaf, group {@code C[q mod #C]} and its port {@code ⌊q/#C⌋ mod #g}, {@code q = ⌊d/Π⌋}.
     */
    private static int closedForm(FabricIndex index, DmodcRouting routing, int s, int d) {
        int leaf = index.leafNumber(index.nodeLeaf(index.nodeByDestination(d)));
        int[] groups = routing.candidateGroups(s, leaf);
        int q = d / routing.divider(s);
        int g = groups[q % groups.length];
        return index.groupPort(g, (q / groups.length) % index.groupSize(g));
    }

    /**
     * The properties of {@code repairer}'s repair of {@code full} (a routing of its engine) for {@code degraded}, against
     * Dmodc's routing of it: Dmodc's validity, traced; deadlock-free; the same from the tables alone; only entries off
     * a candidate moved, each to Dmodc's closed form; at most twice the minimum churn.
     */
    static void check(String what, TableRepairer repairer, RoutedSnapshot full, Fabric degraded) {
        FabricIndex next = degraded.index();
        if (next.leafCount() == 0) {
            return;
        }
        RoutedSnapshot repaired = repairer.repair(full, next);
        DmodcRouting scratch = ENGINE.compute(next);
        ForwardingTables tables = repaired.result().tables();
        assertThat(repaired.result().validity()).as(what).isEqualTo(scratch.result().validity());
        RoutedFabric routed = RoutedFabric.of(next, tables);
        assertThat(TracedValidity.of(routed).unreachablePairs()).as("%s: traced unreachable pairs", what)
                .isEqualTo(scratch.result().validity().unreachablePairs());
        assertThat(new DeadlockAnalyzer(routed).analyze().deadlockFree()).as("%s: deadlock-free", what).isTrue();
        // the offline path: the tables alone, every entry checked
        ForwardingTables offline = repairer.repair(full.result().tables(), null, next).result().tables();
        assertThat(offline.sameAs(tables)).as("%s: repair from the tables alone", what).isTrue();
        ForwardingTables before = full.result().tables();
        long[] guids = new long[before.switchCount()];
        for (int i = 0; i < guids.length; i++) {
            guids[i] = before.switchGuid(i);
        }
        for (int s = 0; s < next.switchCount(); s++) {
            int b = Arrays.binarySearch(guids, next.switchGuid(s));
            for (int d = 0; d < next.destinationCount(); d++) {
                int now = tables.port(s, d);
                int[] candidates = scratch.candidatePorts(s, d);
                if (candidates.length > 0) {
                    assertThat(candidates).as("%s: switch %d destination %d", what, s, d).contains(now);
                } else {
                    assertThat(now).as("%s: switch %d destination %d", what, s, d).isEqualTo(ForwardingTables.NO_ROUTE);
                }
                int old = before.port(b, d);
                if (old != now && old != ForwardingTables.NO_ROUTE) {
                    assertThat(candidates).as("%s: switch %d destination %d moved off a candidate", what, s, d)
                            .doesNotContain(old);
                }
                if (old != now && now != ForwardingTables.NO_ROUTE && next.nodeLeaf(next.nodeByDestination(d)) != s) {
                    assertThat(now).as("%s: switch %d destination %d moved to Dmodc's closed form", what, s, d)
                            .isEqualTo(closedForm(next, scratch, s, d));
                }
            }
        }
        TableChurn churn = repairer.churn(before, repaired, POOL);
        assertThat(churn.changedEntries()).as("%s: %s", what, churn).isLessThanOrEqualTo(2 * churn.minimumEntries());
        assertThat(churn.changedEntries()).as("%s: %s", what, churn).isGreaterThanOrEqualTo(churn.minimumEntries());
    }
}
