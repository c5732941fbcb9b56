package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.TableChurn;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.DeadlockAnalyzer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TracedValidity;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Returns after faults, offline as {@code route --previous} chains them (each step repairs the tables the step before
 * left): random sequences of faults and returns on generated PGFTs, each from a fixed seed. After every step the
 * tables are valid (traced) and deadlock-free; after every return their all-to-all maximum and random-permutation
 * mean are within a few per cent of Dmodc's routing of the fabric as it is; once whole, they are Dmodc's routing.
 */
class ReturnRepairTest {
    private static final DmodcEngine ENGINE = new DmodcEngine(2);
    private static final RoutingPool POOL = new RoutingPool(1, "test");
    /** Largest all-to-all maximum after a return, as a share of a full routing's. */
    static final double ALL_TO_ALL_SLACK = 1.05;
    /** Largest random-permutation mean after a return, as a share of a full routing's. */
    static final double RANDOM_SLACK = 1.05;

    @AfterAll
    static void close() {
        ENGINE.close();
        POOL.close();
    }

    @Test
    void everyReturnGivesTheBalanceBackAndAWholeFabricItsFullRouting() {
        assertThat(chainedReturns(ENGINE, index -> ENGINE.compute(index).result().tables())).isGreaterThan(50);
    }

    /**
     * The sequences of {@link ReturnSequences} on {@link TestFabrics#MEDIUM_SPECS}, each step repairing the tables the
     * step before left with {@code repairer}: valid (traced), deadlock-free, the churn's taken-back entries among its
     * changed ones; after each return balanced against {@code full}'s routing of the fabric; whole again, the whole
     * fabric's full routing. Returns how many returns there were.
     */
    static int chainedReturns(TableRepairer repairer, Function<FabricIndex, ForwardingTables> full) {
        int returns = 0;
        for (String spec : TestFabrics.MEDIUM_SPECS) {
            for (long seed = 1; seed <= 3; seed++) {
                Fabric whole = TestFabrics.canonical(spec);
                ForwardingTables tables = full.apply(whole.index());
                for (ReturnSequences.Step step : ReturnSequences.of(whole, 4, new Random(seed * 1_000 + spec.hashCode()))) {
                    String what = spec + " seed " + seed + " " + step.what();
                    FabricIndex index = step.fabric().index();
                    RoutedSnapshot repaired = repairer.repair(tables, null, index);
                    ForwardingTables next = repaired.result().tables();
                    assertValidAndDeadlockFree(what, index, repaired);
                    if (step.isReturn()) {
                        returns++;
                        assertBalanced(what, index, next, full.apply(index), repaired);
                    }
                    TableChurn churn = repairer.churn(tables, repaired, POOL);
                    assertThat(churn.takenBack()).as(what).isLessThanOrEqualTo(churn.changedEntries());
                    tables = next;
                }
                assertThat(tables.sameAs(full.apply(whole.index())))
                        .as("%s seed %d: whole again, the full routing", spec, seed).isTrue();
            }
        }
        return returns;
    }

    /** The tables of {@code repaired} route the pairs its validity says (traced), deadlock-free. */
    static void assertValidAndDeadlockFree(String what, FabricIndex index, RoutedSnapshot repaired) {
        ForwardingTables next = repaired.result().tables();
        assertThat(TracedValidity.of(RoutedFabric.of(index, next)).unreachablePairs()).as(what)
                .isEqualTo(repaired.result().validity().unreachablePairs());
        assertThat(new DeadlockAnalyzer(RoutedFabric.of(index, next)).analyze().deadlockFree()).as(what).isTrue();
    }

    @Test
    void aReturnedTopSwitchCarriesWhatAFullRoutingGivesIt() {
        String spec = "PGFT(3;4,4,16;1,4,4;1,1,1)";
        Fabric whole = TestFabrics.canonical(spec);
        long top = TestFabrics.sw(3, 1);
        long l2 = TestFabrics.sw(2, 6);
        Fabric withoutTop = whole.withoutSwitches(List.of(top));
        Fabric withoutBoth = withoutTop.withoutSwitches(List.of(l2));
        ForwardingTables intact = ENGINE.compute(whole.index()).result().tables();
        ForwardingTables t1 = ENGINE.repair(intact, withoutTop.index()).result().tables();
        ForwardingTables t2 = ENGINE.repair(t1, withoutBoth.index()).result().tables();
        // the top switch comes back while the level-2 switch is still out: it carries its full routing's routes
        FabricIndex index = whole.withoutSwitches(List.of(l2)).index();
        DmodcRouting back = ENGINE.repair(t2, index);
        ForwardingTables full = ENGINE.compute(index).result().tables();
        int s = index.switchId(top);
        long carried = transitRoutes(index, back.result().tables(), s);
        assertThat(carried).as("routes through the returned top switch").isPositive()
                .isEqualTo(transitRoutes(index, full, s));
        assertThat(back.fromFull()).isPositive();
        assertThat(ENGINE.churn(t2, back, POOL).takenBack()).as("entries sent over the returned links").isPositive();
    }

    /**
     * A whole fabric whose GUIDs are not the generator's (OpenSM's subnets carry their own) is still whole: a return
     * that makes it whole gives its full routing, also from a rebalance's tables (the degraded fabric's full routing,
     * not a repair of the whole one's), as a return on the generator's GUIDs does.
     */
    @Test
    void aReturnThatMakesARelabelledFabricWholeGivesItsFullRoutingAfterARebalance() {
        String spec = "PGFT(3;4,4,4;1,4,4;1,1,1)";
        Fabric canonical = TestFabrics.canonical(spec);
        Fabric whole = TestFabrics.relabel(canonical, 11).withPgft(canonical.pgft().orElseThrow());
        int at = canonical.links().indexOf(TestFabrics.linkAt(canonical, TestFabrics.sw(1, 13), 8));
        Fabric degraded = whole.withoutLinks(List.of(whole.links().get(at)));
        try (HomeDmodcEngine home = new HomeDmodcEngine(1)) {
            TableRepairer repairer = home.repairer().orElseThrow();
            // the daemon's two ways: from the rebalance's snapshot, and from its stored tables after a restart
            RoutedSnapshot rebalanced = home.routeSnapshot(degraded.index());
            ForwardingTables full = home.routeSnapshot(whole.index()).result().tables();
            RoutedSnapshot back = repairer.repair(rebalanced, whole.index());
            assertThat(back.result().tables().sameAs(full)).as("whole again: the full routing").isTrue();
            RoutedSnapshot resumed = repairer.repair(rebalanced.result().tables(), degraded.index(), degraded.index());
            RoutedSnapshot backAfterRestart = repairer.repair(resumed, whole.index());
            assertThat(backAfterRestart.result().tables().sameAs(full)).as("whole again after a restart").isTrue();
            assertThat(repairer.churn(rebalanced.result().tables(), back, POOL).changedEntries()).isPositive();
        }
    }

    /** Entries of switches other than {@code s} whose port leads to {@code s}. */
    private static long transitRoutes(FabricIndex index, ForwardingTables tables, int s) {
        long n = 0;
        for (int t = 0; t < index.switchCount(); t++) {
            int[] peers = index.peerSwitches(t);
            for (int d = 0; d < tables.destinationCount(); d++) {
                int port = tables.port(t, d);
                if (port < peers.length && peers[port] == s) {
                    n++;
                }
            }
        }
        return n;
    }

    static void assertBalanced(String what, FabricIndex index, ForwardingTables tables, ForwardingTables full,
                               RoutedSnapshot snapshot) {
        assertBalanced(what, index, tables, full, snapshot, ALL_TO_ALL_SLACK);
    }

    /** As above, with the all-to-all maximum at most {@code allToAllSlack} times the full routing's. */
    static void assertBalanced(String what, FabricIndex index, ForwardingTables tables, ForwardingTables full,
                               RoutedSnapshot snapshot, double allToAllSlack) {
        DmodcRouting repaired = (DmodcRouting) snapshot;
        CongestionAnalyzer ours = new CongestionAnalyzer(RoutedFabric.of(index, tables), 1);
        CongestionAnalyzer theirs = new CongestionAnalyzer(RoutedFabric.of(index, full), 1);
        TrafficPattern random = new TrafficPattern.RandomPermutations(50, 99);
        long a2a = ours.analyze(new TrafficPattern.AllToAll()).max();
        long a2aFull = theirs.analyze(new TrafficPattern.AllToAll()).max();
        double mean = ours.analyze(random).mean();
        double meanFull = theirs.analyze(random).mean();
        System.out.printf("%s: all-to-all %d / %d, random mean %.3f / %.3f, from the full routing %d%n", what, a2a, a2aFull, mean,
                meanFull, repaired.fromFull());
        assertThat((double) a2a).as("%s: all-to-all max against the full routing's %d", what, a2aFull)
                .isLessThanOrEqualTo(a2aFull * allToAllSlack);
        assertThat(mean).as("%s: random mean against the full routing's %.3f", what, meanFull)
                .isLessThanOrEqualTo(meanFull * RANDOM_SLACK);
    }
}
