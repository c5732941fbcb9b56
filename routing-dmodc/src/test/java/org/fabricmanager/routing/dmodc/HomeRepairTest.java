package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabricmanager.routing.AbandonedException;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LinkChanges;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@code dmodc-home} as the daemon routes with it: an engine for the daemon whose repairer is Dmodc's repair on top of
 * its tables, with returns taking back its own full routing. The repair properties of {@link DmodcRepairTest} from
 * its routings of intact and degraded fabrics; the fault-and-return sequences of {@link ReturnRepairTest}, chained as
 * {@code route --previous} chains them and from a base as the daemon repairs (the base moving to a repair into which
 * an element it lacked came back), balanced after such returns against its full routing and, once whole, that
 * routing, which is Dmodc's.
 */
class HomeRepairTest {
    private static final HomeDmodcEngine HOME = new HomeDmodcEngine(2);
    private static final TableRepairer REPAIRER = HOME.repairer().orElseThrow();
    /**
     * A refined repair's largest all-to-all maximum from a degraded fabric's routing, as a share of the full
     * routing's: the base keeps its own stand-ins where the fault did not reach, placed by the loads of the fabric it
     * was routed for, and only the moved entries take the full routing's (from the intact tree's routing, with no
     * stand-ins to keep, {@link ReturnRepairTest#ALL_TO_ALL_SLACK}).
     */
    private static final double REFINED_FROM_DEGRADED_SLACK = 1.2;

    @AfterAll
    static void close() {
        HOME.close();
    }

    @Test
    void routesForTheDaemonAndRepairs() {
        assertThat(HOME.routesForDaemon()).isTrue();
        assertThat(HOME.repairer()).isPresent();
    }

    @Test
    void repairsEveryFaultKindOfItsTablesAsDmodcRepairs() {
        int cases = 0;
        List<String> specs = new ArrayList<>(TestFabrics.MEDIUM_SPECS);
        specs.add("PGFT(3;8,8,8;1,8,8;1,1,1)");
        for (String spec : specs) {
            for (long seed = 1; seed <= 2; seed++) {
                Fabric base = TestFabrics.canonical(spec);
                if (seed == 2) {
                    base = Degrader.degrade(base, DegradationPlan.random(0.05, 0, seed));
                }
                RoutedSnapshot full = HOME.routeSnapshot(base.index());
                // repairing for its own fabric gives its tables back
                assertThat(REPAIRER.repair(full, base.index()).result().tables().sameAs(full.result().tables()))
                        .as("%s seed %d: repaired for its own fabric", spec, seed).isTrue();
                Random random = new Random(seed * 31 + spec.hashCode());
                for (RepairFaults.Fault fault : RepairFaults.everyKind(base, PgftSpec.parse(spec).h(), random)) {
                    DmodcRepairTest.check(spec + " seed " + seed + " " + fault.name(), REPAIRER, full,
                            fault.degraded());
                    cases++;
                }
            }
        }
        assertThat(cases).isGreaterThan(40);
    }

    @Test
    void chainedReturnsGiveItsBalanceBackAndAWholeFabricItsFullRouting() {
        assertThat(ReturnRepairTest.chainedReturns(REPAIRER, index -> HOME.route(index).tables())).isGreaterThan(50);
    }

    @Test
    void returnsFromTheDaemonsBaseGiveItsBalanceBackAndAWholeFabricItsFullRouting() {
        int returns = 0;
        for (String spec : TestFabrics.MEDIUM_SPECS) {
            for (long seed = 1; seed <= 3; seed++) {
                Fabric whole = TestFabrics.canonical(spec);
                List<ReturnSequences.Step> steps = ReturnSequences.of(whole, 4,
                        new Random(seed * 7_000 + spec.hashCode()));
                // the daemon started with the first fault's element out: its base is the full routing of that fabric
                RoutedSnapshot base = HOME.routeSnapshot(steps.get(0).fabric().index());
                ForwardingTables tables = base.result().tables();
                for (ReturnSequences.Step step : steps.subList(1, steps.size())) {
                    String what = spec + " seed " + seed + " " + step.what();
                    FabricIndex index = step.fabric().index();
                    RoutedSnapshot repaired = REPAIRER.repair(base, index);
                    ReturnRepairTest.assertValidAndDeadlockFree(what, index, repaired);
                    if (LinkChanges.added(base.fabric(), index)) {
                        // an element the base lacked came back: it takes back the full routing's routes, and the
                        // balance is a full routing's (one the base had gives back what moved for it, and the
                        // faults still out keep their repair, with Dmodc as with this engine)
                        returns++;
                        ReturnRepairTest.assertBalanced(what, index, repaired.result().tables(),
                                HOME.route(index).tables(), repaired);
                        base = repaired; // as the daemon's RoutingService moves its base
                    }
                    tables = repaired.result().tables();
                }
                assertThat(tables.sameAs(HOME.route(whole.index()).tables()))
                        .as("%s seed %d: whole again, the full routing", spec, seed).isTrue();
                assertThat(tables.sameAs(dmodc(whole.index()))).as("%s seed %d: Dmodc's", spec, seed).isTrue();
            }
        }
        assertThat(returns).isGreaterThan(10);
    }

    /**
     * A refined repair changes only entries the repair changed, each to the full routing's port, stays valid and
     * deadlock-free, and has the full routing's balance where the repair does not (from a degraded fabric's routing,
     * its all-to-all maximum within {@link #REFINED_FROM_DEGRADED_SLACK} of it): every fault kind, from the full
     * routings of intact and degraded fabrics. Dmodc's own repairs have nothing to refine.
     */
    @Test
    void refinedRepairsMoveOnlyTheRepairsEntriesToTheFullRoutingsPorts() {
        int cases = 0;
        int refined = 0;
        for (String spec : List.of("PGFT(3;8,8,8;1,8,8;1,1,1)", "PGFT(3;4,4,16;1,4,4;1,1,1)")) {
            for (long seed = 1; seed <= 2; seed++) {
                Fabric base = TestFabrics.canonical(spec);
                if (seed == 2) {
                    base = Degrader.degrade(base, DegradationPlan.random(0.05, 0, seed));
                }
                RoutedSnapshot full = HOME.routeSnapshot(base.index());
                ForwardingTables before = full.result().tables();
                Random random = new Random(seed * 17 + spec.hashCode());
                for (RepairFaults.Fault fault : RepairFaults.everyKind(base, PgftSpec.parse(spec).h(), random)) {
                    String what = spec + " seed " + seed + " " + fault.name();
                    FabricIndex index = fault.degraded().index();
                    RoutedSnapshot repaired = REPAIRER.repair(full, index);
                    RoutedSnapshot r = REPAIRER.refine(before, repaired).orElseThrow();
                    ReturnRepairTest.assertValidAndDeadlockFree(what, index, r);
                    ForwardingTables ours = r.result().tables();
                    ForwardingTables theirs = HOME.route(index).tables();
                    ForwardingTables rep = repaired.result().tables();
                    for (int s = 0; s < index.switchCount(); s++) {
                        int b = before.switchCount() == 0 ? -1 : base.index().switchId(index.switchGuid(s));
                        for (int d = 0; d < index.destinationCount(); d++) {
                            int port = ours.port(s, d);
                            if (b >= 0 && port != before.port(b, d)) {
                                assertThat(rep.port(s, d)).as("%s: switch %d destination %d changed, not by the repair",
                                        what, s, d).isNotEqualTo(before.port(b, d));
                            }
                            if (port != rep.port(s, d)) {
                                assertThat(port).as("%s: switch %d destination %d", what, s, d)
                                        .isEqualTo(theirs.port(s, d));
                                refined++;
                            }
                        }
                    }
                    ReturnRepairTest.assertBalanced(what, index, ours, theirs, r,
                            seed == 1 ? ReturnRepairTest.ALL_TO_ALL_SLACK : REFINED_FROM_DEGRADED_SLACK);
                    assertThat(new DmodcEngine(1).refine(before, repaired)).as(what).isEmpty();
                    cases++;
                }
            }
        }
        assertThat(cases).isGreaterThan(20);
        assertThat(refined).isGreaterThan(1000);
    }

    /**
     * The loss the chaos simulation found it with (seed 30513, shrunk): on {@code PGFT(2;4,4;1,4;1,1)} a spine and the
     * leaf of the highest destination indices lost (its nodes gone, so the tables are narrower than the base's), and
     * two more cables of another leaf. The refinement changes only entries the repair changed: it once took the full
     * routing's port for every entry where the widths differed, moving routes that crossed nothing lost.
     */
    @Test
    void aRefinementOfNarrowerTablesMovesOnlyTheRepairsEntries() {
        Fabric base = TestFabrics.canonical("PGFT(2;4,4;1,4;1,1)");
        long leaf2 = PgftGenerator.switchGuid(1, 2);
        Fabric withoutTwo = base.withoutSwitches(List.of(PgftGenerator.switchGuid(2, 1), PgftGenerator.switchGuid(1, 3)))
                .withoutLinks(base.links().stream().filter(l -> l.a() == leaf2 && (l.b() == PgftGenerator.switchGuid(2, 0)
                        || l.b() == PgftGenerator.switchGuid(2, 3)) || l.b() == leaf2 && (l.a() == PgftGenerator
                        .switchGuid(2, 0) || l.a() == PgftGenerator.switchGuid(2, 3))).toList());
        // the lost leaf's nodes are gone too, as the daemon's discovery no longer sees them
        FabricIndex index = new Fabric(base.pgft().orElseThrow(), withoutTwo.switches(), withoutTwo.nodes().stream()
                .filter(n -> withoutTwo.links().stream().anyMatch(l -> l.a() == n.guid() || l.b() == n.guid()))
                .toList(), withoutTwo.links()).index();
        RoutedSnapshot full = HOME.routeSnapshot(base.index());
        ForwardingTables before = full.result().tables();
        assertThat(index.destinationCount()).as("narrower tables").isLessThan(before.destinationCount());
        RoutedSnapshot repaired = REPAIRER.repair(full, index);
        ForwardingTables rep = repaired.result().tables();
        ForwardingTables ours = REPAIRER.refine(before, repaired).orElseThrow().result().tables();
        int moved = 0;
        for (int s = 0; s < index.switchCount(); s++) {
            int b = base.index().switchId(index.switchGuid(s));
            for (int d = 0; d < index.destinationCount(); d++) {
                if (ours.port(s, d) != before.port(b, d)) {
                    assertThat(rep.port(s, d)).as("switch %d destination %d changed, not by the repair", s, d)
                            .isNotEqualTo(before.port(b, d));
                }
                moved += rep.port(s, d) != before.port(b, d) ? 1 : 0;
            }
        }
        assertThat(moved).as("entries the repair moved").isPositive();
    }

    /**
     * A return to the base routing's own whole fabric (a flap back before the base changed; the fabric snapshotted
     * anew) gives the base's tables, the full routing, without routing the fabric again (no {@code returns} phase);
     * {@link LinkChanges#none} tells the same fabric from one a fault changed.
     */
    @Test
    void aFlapBackToTheBasesWholeFabricGivesItsFullRoutingWithoutRoutingItAgain() {
        for (String spec : List.of("PGFT(3;8,8,8;1,8,8;1,1,1)", "PGFT(3;4,4,16;1,4,4;1,1,1)")) {
            Fabric whole = TestFabrics.canonical(spec);
            RoutedSnapshot base = HOME.routeSnapshot(whole.index());
            FabricIndex again = TestFabrics.canonical(spec).index();
            assertThat(again).isNotSameAs(whole.index());
            assertThat(LinkChanges.none(whole.index(), again)).isTrue();
            RoutedSnapshot back = REPAIRER.repair(base, again);
            assertThat(back.result().tables().sameAs(base.result().tables())).as(spec).isTrue();
            assertThat(back.result().tables().sameAs(dmodc(again))).as("%s: the full routing", spec).isTrue();
            assertThat(back.result().timings().phases()).extracting(p -> p.name()).as(spec).doesNotContain("returns")
                    .contains("same fabric");
            for (RepairFaults.Fault fault : RepairFaults.everyKind(whole, PgftSpec.parse(spec).h(), new Random(5))) {
                FabricIndex index = fault.degraded().index();
                assertThat(LinkChanges.none(whole.index(), index)).as("%s %s", spec, fault.name()).isFalse();
                // from the fault's repair (another fabric) the whole fabric is still routed in full, as before
                RoutedSnapshot repaired = REPAIRER.repair(base, index);
                RoutedSnapshot returned = REPAIRER.repair(repaired, again);
                assertThat(returned.result().tables().sameAs(dmodc(again))).as("%s %s", spec, fault.name()).isTrue();
                assertThat(returned.result().timings().phases()).extracting(p -> p.name()).contains("returns");
            }
        }
    }

    /**
     * The daemon gives a refinement up when the fabric changes under it: it ends at the first parallel chunk after its
     * flag turns, whichever phase it is in, and leaves the engine as it was (the next refinement is the same).
     */
    @Test
    void anAbandonedRefinementStopsAtTheNextChunkAndTheEngineRefinesTheSameAfterwards() {
        Fabric base = Degrader.degrade(TestFabrics.canonical("PGFT(3;8,8,8;1,8,8;1,1,1)"),
                DegradationPlan.random(0.05, 0, 3));
        RoutedSnapshot full = HOME.routeSnapshot(base.index());
        ForwardingTables before = full.result().tables();
        RepairFaults.Fault fault = RepairFaults.everyKind(base, 3, new Random(3)).get(0);
        RoutedSnapshot repaired = REPAIRER.repair(full, fault.degraded().index());
        ForwardingTables expected = REPAIRER.refine(before, repaired).orElseThrow().result().tables();
        // counted by both of the pool's workers
        AtomicInteger checks = new AtomicInteger();
        assertThat(REPAIRER.refine(before, repaired, () -> checks.incrementAndGet() < 0)).get()
                .satisfies(r -> assertThat(r.result().tables().sameAs(expected)).isTrue());
        int all = checks.get();
        assertThat(all).as("checks in a whole refinement").isGreaterThan(10);
        for (int after : new int[] {0, 1, all / 2, all - 1}) {
            checks.set(0);
            assertThatThrownBy(() -> REPAIRER.refine(before, repaired, () -> checks.incrementAndGet() > after))
                    .isInstanceOf(AbandonedException.class);
            // each of the pool's two workers sees the flag once more at most before the loop ends
            assertThat(checks.get()).as("abandoned after %d checks", after).isBetween(after + 1, after + 2);
            assertThat(REPAIRER.refine(before, repaired).orElseThrow().result().tables().sameAs(expected)).isTrue();
        }
    }

    private static ForwardingTables dmodc(FabricIndex index) {
        try (RoutingEngine dmodc = new DmodcEngine(1)) {
            return dmodc.route(index).tables();
        }
    }
}
