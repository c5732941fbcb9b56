package org.fabricmanager.routing.dmodc.home;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.routing.dmodc.RefinementProperties;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@code dmodc-home} entry by entry against its rules written plainly ({@link PlainHome}), and against the plain
 * engine as properties: on intact fabrics it is Dmodc; on seeded degraded ones every entry is one of Dmodc's
 * candidates (formula (2): so the routes are Dmodc's shortest up*&#47;down* paths, for the same leaf pairs,
 * deadlock-free), the same from engines of one and two threads; and its shift, random and all-to-all figures
 * against Dmodc's.
 */
class HomeDmodcEngineTest {
    private static final DmodcEngine DMODC = new DmodcEngine(1);
    private static final HomeDmodcEngine ONE = new HomeDmodcEngine(1);
    private static final HomeDmodcEngine TWO = new HomeDmodcEngine(2);

    @AfterAll
    static void close() {
        DMODC.close();
        ONE.close();
        TWO.close();
    }

    @Test
    void intactFabricsGetDmodcsTables() {
        RefinementProperties.assertIntactTablesAreDmodcs(ONE, HomeDmodcEngine.NAME, DMODC);
    }

    /**
     * Fabrics degraded as the balance sweep degrades its 4,096-node fabric (5% of the links, no switch): the
     * properties; a shift maximum never above Dmodc's (below on 2 of these 9); a random maximum at most one route
     * above (one case: 7 against 6), and all-to-all maxima lower in total (936-992 against 1,176-1,320 on
     * {@code PGFT(3;8,8,8;1,8,8;1,1,1)}, but 1,452-1,500 against 1,348-1,420 where parallel links join levels 2
     * and 3, {@code PGFT(3;4,8,16;1,4,4;1,1,2)}).
     */
    @Test
    void sweepLikeDegradationsKeepThePropertiesAndTheShiftMaximum() {
        long changed = 0;
        long allToAll = 0;
        long dmodcAllToAll = 0;
        for (RefinementProperties.Case c : RefinementProperties.sweepLike()) {
            String what = c.what();
            RefinementProperties.Figures figures = RefinementProperties.check(what, c.index(), DMODC, ONE, TWO);
            assertThat(figures.shift()).as("%s: shift max", what).isLessThanOrEqualTo(figures.dmodcShift());
            assertThat(figures.random()).as("%s: random max", what).isLessThanOrEqualTo(figures.dmodcRandom() + 1);
            allToAll += figures.allToAll();
            dmodcAllToAll += figures.dmodcAllToAll();
            changed += figures.changed();
        }
        assertThat(allToAll).as("all-to-all maxima, summed").isLessThan(dmodcAllToAll);
        assertThat(changed).as("entries moved off Dmodc's choice").isPositive();
    }

    /**
     * Harder degradations (up to 20% of the links and three switches, {@link TestFabrics#degraded}): the properties.
     * The balance is not bounded there: pods that lost whole level-1 switches send many destinations to other
     * homes: the shift maximum was up to three routes above Dmodc's on these (12 against 9), the all-to-all maximum
     * above Dmodc's on 5 of the 12 (by up to 40%).
     */
    @Test
    void harderDegradationsKeepTheProperties() {
        for (String spec : List.of("PGFT(3;8,8,8;1,8,8;1,1,1)", "PGFT(3;4,4,16;1,4,4;1,1,1)", "PGFT(2;4,64;1,8;1,1)")) {
            for (long seed = 1; seed <= 4; seed++) {
                RefinementProperties.check(TestFabrics.describe(spec, seed), TestFabrics.degraded(spec, seed).index(),
                        DMODC, ONE, TWO);
            }
        }
    }

    /**
     * One dead switch above the leaves, each level-1 and level-2 switch position of {@code PGFT(3;8,8,8;1,8,8;1,1,1)}
     * in turn: the pod or plane that lost it keeps the others at the positions their ports name, so the dead
     * switch's home destinations move and the rest mostly stay, and pods that lost a level-1 switch choose their home
     * tops by the divider of their positions. Dmodc's lists of 7 move every destination and put two destinations'
     * traffic on one link: all-to-all 1,008 (dead level-1 switch) and 896 (dead top) where the pass gives 584 and 576;
     * the shift maximum stays Dmodc's, and fewer entries differ from the intact fabric's tables than Dmodc's do.
     */
    @Test
    void aDeadSwitchLeavesTheOthersAtTheirPositions() {
        String spec = "PGFT(3;8,8,8;1,8,8;1,1,1)";
        Fabric intact = PgftGenerator.generate(PgftSpec.parse(spec));
        ForwardingTables before = DMODC.route(intact.index()).tables();
        for (int level = 2; level <= 3; level++) {
            for (int position = 0; position < 8; position++) {
                long guid = PgftGenerator.switchGuid(level, position * 9);
                String what = spec + ", switch " + Long.toHexString(guid) + " dead";
                FabricIndex index = Degrader.degrade(intact, new DegradationPlan(0, 0, 1, List.of(guid), List.of()))
                        .index();
                RefinementProperties.Figures f = RefinementProperties.check(what, index, DMODC, ONE, TWO);
                assertThat(f.shift()).as("%s: shift max", what).isLessThanOrEqualTo(f.dmodcShift());
                assertThat(f.allToAll()).as("%s: all-to-all max", what).isLessThan(f.dmodcAllToAll());
                assertThat(moved(intact.index(), before, index, ONE.route(index).tables())).as("%s: moved", what)
                        .isLessThan(moved(intact.index(), before, index, DMODC.route(index).tables()));
                assertPlainRules(what, index);
            }
        }
    }

    /**
     * Every leaf of one pod of {@code PGFT(3;8,8,8;1,8,8;1,1,1)} has lost one uplink, each to another level-1
     * switch, so no leaf of that pod is linked to all of them: still a PGFT's pod, which the pass takes (a pod is
     * left to Dmodc only when it has more level-1 switches than any leaf is linked to). Dmodc's shorter lists there
     * put two destinations on one link down from every source; the pass moves that pod's leaves' entries and keeps
     * all-to-all below Dmodc's, with the properties and the plain rules.
     */
    @Test
    void aPodWhoseLeavesAllLostAnUplinkIsStillRouted() {
        String spec = "PGFT(3;8,8,8;1,8,8;1,1,1)";
        Fabric intact = PgftGenerator.generate(PgftSpec.parse(spec));
        List<Link> cut = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            long leaf = PgftGenerator.switchGuid(1, i);
            List<Link> up = new ArrayList<>();
            for (Link l : intact.links()) {
                long other = l.a() == leaf ? l.b() : l.b() == leaf ? l.a() : -1;
                if (other >= 0 && other >= PgftGenerator.switchGuid(2, 0) && other < PgftGenerator.switchGuid(3, 0)) {
                    up.add(l);
                }
            }
            up.sort((x, y) -> Integer.compare(x.a() == leaf ? x.aPort() : x.bPort(), y.a() == leaf ? y.aPort()
                    : y.bPort()));
            cut.add(up.get(i));
        }
        FabricIndex index = Degrader.degrade(intact, new DegradationPlan(0, 0, 1, List.of(), cut)).index();
        String what = spec + ", pod 0's leaves each without one uplink";
        RefinementProperties.Figures f = RefinementProperties.check(what, index, DMODC, ONE, TWO);
        assertThat(f.allToAll()).as("%s: all-to-all max", what).isLessThan(f.dmodcAllToAll());
        ForwardingTables dmodc = DMODC.route(index).tables();
        ForwardingTables home = ONE.route(index).tables();
        long podLeavesMoved = 0;
        for (int i = 0; i < 8; i++) {
            int s = index.switchId(PgftGenerator.switchGuid(1, i));
            for (int d = 0; d < index.destinationCount(); d++) {
                podLeavesMoved += home.port(s, d) != dmodc.port(s, d) ? 1 : 0;
            }
        }
        assertThat(podLeavesMoved).as("%s: entries of the pod's leaves off Dmodc's", what).isPositive();
        assertPlainRules(what, index);
    }

    /**
     * A level-1 switch that lost half its links up still takes its homes' traffic from most sources outside its pod,
     * but a few send it up another plane, to come into the pod through a switch with all its links up ({@link
     * Detours}): here {@code (k + l) mod 32 >= 28}, 4 in 32 of the 56 outside leaves on average per destination.
     */
    @Test
    void aWeakHomeComesIntoItsPodPartlyThroughAStrongerSwitch() {
        String spec = "PGFT(3;8,8,8;1,8,8;1,1,1)";
        Fabric intact = PgftGenerator.generate(PgftSpec.parse(spec));
        long weak = PgftGenerator.switchGuid(2, 0);
        List<Link> cut = new ArrayList<>();
        for (Link l : intact.links()) {
            long other = l.a() == weak ? l.b() : l.b() == weak ? l.a() : -1;
            if (other >= PgftGenerator.switchGuid(3, 0) && cut.size() < 4) {
                cut.add(l);
            }
        }
        FabricIndex index = Degrader.degrade(intact, new DegradationPlan(0, 0, 1, List.of(), cut)).index();
        String what = spec + ", a level-1 switch without 4 of its 8 links up";
        RefinementProperties.check(what, index, DMODC, ONE, TWO);
        ForwardingTables home = ONE.route(index).tables();
        int u = index.switchId(weak);
        Set<Integer> pod = new HashSet<>();
        int firstLeaf = index.switchId(PgftGenerator.switchGuid(1, 0));
        for (int g = index.groupStart(firstLeaf); g < index.groupStart(firstLeaf) + index.groupCount(firstLeaf); g++) {
            pod.add(index.groupNeighbour(g));
        }
        assertThat(pod).as("pod 0's level-1 switches").hasSize(8).contains(u);
        int weakHomes = 0;
        int detoured = 0;
        for (int d = 0; d < index.destinationCount(); d++) {
            if (index.leafNumber(index.nodeLeaf(index.nodeByDestination(d))) >= 8) {
                continue; // a destination outside pod 0
            }
            int throughWeak = 0;
            int elsewhere = 0;
            for (int k = 8; k < index.leafCount(); k++) {
                int at = index.leaves()[k];
                for (int hop = 0; hop < 3; hop++) {
                    at = index.peerSwitches(at)[home.port(at, d)];
                }
                assertThat(pod).as("%s: destination %d from leaf %d comes into its pod", what, d, k).contains(at);
                throughWeak += at == u ? 1 : 0;
                elsewhere += at != u ? 1 : 0;
            }
            if (throughWeak > elsewhere) {
                weakHomes++;
                detoured += elsewhere;
                assertThat(elsewhere).as("%s: sources of weak home %d sent elsewhere", what, d).isLessThanOrEqualTo(14);
            } else {
                assertThat(throughWeak).as("%s: sources of destination %d through the weak switch", what, d).isZero();
            }
        }
        assertThat(weakHomes).as("%s: the weak switch's homes", what).isEqualTo(8);
        assertThat(detoured).as("%s: sources of its homes sent through a stronger switch", what).isBetween(8 * 3, 8 * 11);
        assertPlainRules(what, index);
    }

    /**
     * A leaf's uplink moved to a port no other leaf uses (a spare port, the switch one port wider): the leaves' up
     * ports then name 9 positions for pods of 8 level-1 switches, which must not give every pod a gap. The fabric is
     * otherwise intact, so its tables are Dmodc's.
     */
    @Test
    void aCableOnAnOddPortLeavesAnIntactFabricDmodcs() {
        Fabric canonical = PgftGenerator.generate(PgftSpec.parse("PGFT(3;8,8,8;1,8,8;1,1,1)"));
        long leaf = PgftGenerator.switchGuid(1, 0);
        List<FabricSwitch> switches = new ArrayList<>();
        for (FabricSwitch s : canonical.switches()) {
            switches.add(s.guid() == leaf ? new FabricSwitch(s.guid(), s.name(), s.ports() + 1) : s);
        }
        List<Link> links = new ArrayList<>();
        for (Link l : canonical.links()) {
            boolean last = l.a() == leaf && l.aPort() == 16;
            links.add(last ? new Link(l.a(), 17, l.b(), l.bPort()) : l);
        }
        FabricIndex index = new Fabric(canonical.pgft().orElseThrow(), switches, canonical.nodes(), links).index();
        assertThat(ONE.route(index).tables().sameAs(DMODC.route(index).tables())).isTrue();
    }

    /** Entries of {@code after} (on {@code index}) that differ from {@code before} (on {@code intact}), by GUID. */
    private static long moved(FabricIndex intact, ForwardingTables before, FabricIndex index, ForwardingTables after) {
        long moved = 0;
        for (int s = 0; s < index.switchCount(); s++) {
            int was = intact.switchId(index.switchGuid(s));
            for (int d = 0; d < index.destinationCount(); d++) {
                moved += after.port(s, d) != before.port(was, d) ? 1 : 0;
            }
        }
        return moved;
    }

    /**
     * Entry by entry, the engine's tables are {@link PlainHome}'s (the rules written plainly): on the sweep-like
     * fabrics, harder degradations with lost switches, renumbered fabrics and irregular ones (extra cables at any
     * level, shuffled sparse node indices, unplugged nodes), where the pass's fast ways do not apply.
     */
    @Test
    void tablesAreThePlainRulesEntryByEntry() {
        List<RefinementProperties.Case> cases = new ArrayList<>(RefinementProperties.sweepLike());
        for (TestFabrics.Degraded d : TestFabrics.degradations(2)) {
            cases.add(new RefinementProperties.Case(d.toString(), d.fabric().index()));
        }
        for (TestFabrics.Degraded d : TestFabrics.irregular(10)) {
            cases.add(new RefinementProperties.Case(d.toString(), d.fabric().index()));
        }
        Fabric relabelled = TestFabrics.relabel(TestFabrics.degraded("PGFT(3;4,4,8;1,4,4;1,1,1)", 2), 5);
        cases.add(new RefinementProperties.Case("relabelled", relabelled.index()));
        long moved = 0;
        for (RefinementProperties.Case c : cases) {
            moved += assertPlainRules(c.what(), c.index());
        }
        assertThat(moved).as("entries the rules moved off Dmodc's").isPositive();
    }

    /**
     * The pass's fast ways ({@link HomePlanes}: a leaf's row tiled and copied, one destination per slot; {@link
     * ExtraSpread}: a leaf's entries at a level-1 switch written eight at a time) give the plain rules' tables on one
     * and two threads, on randomly degraded fabrics of shapes that take each way and those that do not: as many nodes
     * per leaf as uplinks or more or fewer, leaves of 4, 8, 16 and 24 nodes, 1-10% of the links removed and up to
     * three switches dead. Seeds are in the failure messages.
     */
    @Test
    void fastWaysGiveThePlainRulesTablesOnRandomDegradations() {
        List<String> specs = List.of("PGFT(3;8,8,8;1,8,8;1,1,1)", "PGFT(3;8,8,4;1,8,8;1,1,1)",
                "PGFT(3;16,4,8;1,4,4;1,1,1)", "PGFT(3;4,4,8;1,4,4;1,1,1)", "PGFT(3;16,16,4;1,16,16;1,1,1)",
                "PGFT(3;24,8,4;1,8,8;1,1,1)", "PGFT(2;8,16;1,8;1,1)");
        SplittableRandom random = new SplittableRandom(53);
        long moved = 0;
        for (int i = 0; i < 42; i++) {
            String spec = specs.get(i % specs.size());
            double fraction = 0.01 + random.nextInt(10) / 100.0;
            int dead = random.nextInt(4);
            long seed = random.nextLong(1, 1_000_000);
            String what = String.format(Locale.ROOT, "%s, %.2f of links, %d switches, seed %d", spec, fraction, dead,
                    seed);
            FabricIndex index = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)),
                    DegradationPlan.random(fraction, dead, seed)).index();
            moved += assertPlainRules(what, index);
            assertThat(TWO.route(index).tables().sameAs(ONE.route(index).tables())).as("%s: two threads as one", what)
                    .isTrue();
        }
        assertThat(moved).as("entries the rules moved off Dmodc's").isPositive();
    }

    /** Asserts {@code dmodc-home}'s tables of {@code index} are the plain rules'; returns the entries off Dmodc's. */
    private static long assertPlainRules(String what, FabricIndex index) {
        int[][] expected = PlainHome.tables(index, DMODC.compute(index));
        ForwardingTables dmodc = DMODC.route(index).tables();
        ForwardingTables actual = ONE.route(index).tables();
        long moved = 0;
        for (int s = 0; s < expected.length; s++) {
            for (int d = 0; d < expected[s].length; d++) {
                assertThat(actual.port(s, d)).as("%s: switch %d, destination %d", what, s, d)
                        .isEqualTo(expected[s][d]);
                moved += expected[s][d] != dmodc.port(s, d) ? 1 : 0;
            }
        }
        return moved;
    }

    @Test
    void reportsAHomesPhaseAfterTheRoutes() {
        RoutingResult result = ONE.route(TestFabrics.degraded("PGFT(3;4,4,4;1,4,4;1,1,1)", 1).index());
        assertThat(result.timings().phases()).extracting(p -> p.name()).containsSubsequence("routes", "homes",
                "validity");
    }
}
