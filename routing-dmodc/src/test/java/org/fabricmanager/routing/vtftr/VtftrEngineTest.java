package org.fabricmanager.routing.vtftr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PortClass;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.VcRules;
import org.fabricmanager.routing.VcTransition;
import org.fabricmanager.routing.analysis.DeadlockAnalyzer;
import org.fabricmanager.routing.analysis.DeadlockReport;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.VirtualChannels;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.HdftGenerator;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.LeafFailures;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * VTFTR on canonical 2-D fat trees with random failed leaves. Expectations are computed from the
 * canonical GUIDs (grid coordinates of {@link HdftGenerator}), independently of the engine's layout.
 */
class VtftrEngineTest {
    private static RoutingEngine engine;

    @BeforeAll
    static void start() {
        engine = RoutingEngines.create("vtftr", 2);
    }

    @AfterAll
    static void stop() {
        engine.close();
    }

    @Test
    void routesEveryPairOfSurvivingLeavesOn8x8WithUpTo15FailedLeaves() {
        HdftSpec spec = HdftSpec.parse("HDFT(8x8;4;1;1)");
        Fabric intact = HdftGenerator.generate(spec);
        for (long seed = 1; seed <= 300; seed++) {
            int failures = (int) (seed % 16);
            checkRoutes(spec, intact, LeafFailures.pick(intact, failures, seed), "seed " + seed);
        }
    }

    @Test
    void routesEveryPairOfSurvivingLeavesOn16x16WithUpTo15FailedLeaves() {
        HdftSpec spec = HdftSpec.parse("HDFT(16x16;8;1;1)");
        Fabric intact = HdftGenerator.generate(spec);
        for (long seed = 1; seed <= 80; seed++) {
            int failures = seed <= 20 ? 15 : (int) (seed % 16);
            checkRoutes(spec, intact, LeafFailures.pick(intact, failures, seed), "seed " + seed);
        }
    }

    /**
     * Every surviving leaf reaches every node of every other surviving leaf; xy and yx routes have
     * the fault-free length and turn at the expected leaf; a route whose two turn leaves both failed
     * is mis-routed once, along the source row to a fault-free column, exactly two hops longer; no
     * entry of any switch points at a failed leaf.
     */
    private static void checkRoutes(HdftSpec spec, Fabric intact, List<Long> failed, String what) {
        Set<Long> dead = new HashSet<>(failed);
        boolean[] deadCell = new boolean[spec.leafCount()];
        boolean[] faultColumn = new boolean[spec.columns()];
        int faultColumns = 0;
        for (long g : failed) {
            deadCell[(int) (g & 0xFFFFFFFFL)] = true;
            faultColumns += faultColumn[x(spec, g)] ? 0 : 1;
            faultColumn[x(spec, g)] = true;
        }
        Fabric fabric = intact.withoutSwitches(failed);
        FabricIndex index = fabric.index();
        RoutingResult result = engine.route(index);
        ForwardingTables tables = result.tables();
        String context = what + ", failed " + cells(spec, failed);
        assertThat(result.validity().isValid()).as(context).isTrue();
        // no entry leads to a port whose cable went to a failed leaf
        FabricIndex whole = intact.index();
        for (int s = 0; s < index.switchCount(); s++) {
            int w = whole.switchId(index.switchGuid(s));
            for (int d = 0; d < index.destinationCount(); d++) {
                int port = tables.port(s, d);
                if (port != ForwardingTables.NO_ROUTE && whole.peerSwitches(w)[port] != FabricIndex.NONE
                        && dead.contains(whole.switchGuid(whole.peerSwitches(w)[port]))) {
                    fail(context + ": switch " + index.switchGuid(s) + " sends node " + d + " to a failed leaf");
                }
            }
        }
        int[] leaves = index.leaves();
        int[] path = new int[index.switchCount() + 1];
        for (int d = 0; d < index.destinationCount(); d++) {
            int pos = index.nodeByDestination(d);
            int target = index.nodeLeaf(pos);
            if (target == FabricIndex.NONE) {
                continue;
            }
            int xd = x(spec, index.switchGuid(target));
            int yd = y(spec, index.switchGuid(target));
            for (int source : leaves) {
                if (source == target) {
                    continue;
                }
                int links = walk(index, tables, source, d, pos, path);
                int xs = x(spec, index.switchGuid(source));
                int ys = y(spec, index.switchGuid(source));
                int plain = xs == xd || ys == yd ? 2 : 4;
                boolean xyTurnFailed = deadCell[spec.leafIndex(xd, ys)];
                boolean yxTurnFailed = deadCell[spec.leafIndex(xs, yd)];
                String problem = null;
                if (links < 0) {
                    problem = "no route";
                } else if (plain == 4 && xyTurnFailed && yxTurnFailed) {
                    long detour = index.switchGuid(path[2]);
                    if (links != 6) {
                        problem = "mis-route of " + links + " links, expected 6";
                    } else if (y(spec, detour) != ys) {
                        problem = "mis-route not along the source row";
                    } else if (faultColumns < spec.columns() && faultColumn[x(spec, detour)]) {
                        problem = "mis-route through fault column " + x(spec, detour);
                    } else if (index.switchGuid(path[4]) != HdftGenerator.leafGuid(spec, x(spec, detour), yd)) {
                        problem = "mis-route does not go yx from the detour leaf";
                    }
                } else if (links != plain) {
                    problem = links + " links, expected " + plain;
                } else if (plain == 4) {
                    long turn = xyTurnFailed ? HdftGenerator.leafGuid(spec, xs, yd) : HdftGenerator.leafGuid(spec, xd, ys);
                    if (index.switchGuid(path[2]) != turn) {
                        problem = "turns at " + cell(spec, index.switchGuid(path[2])) + ", expected " + cell(spec, turn);
                    }
                }
                if (problem != null) {
                    fail(context + ": " + cell(spec, index.switchGuid(source)) + " -> node " + d + " at (" + xd + ","
                            + yd + "): " + problem);
                }
            }
        }
    }

    @Test
    void channelGraphIsAcyclicWithTwoVirtualChannelsForManyFaultSets() {
        for (String text : List.of("HDFT(8x8;2;1;1)", "HDFT(6x5;1;2;1)", "HDFT(16x16;1;1;1)")) {
            HdftSpec spec = HdftSpec.parse(text);
            Fabric intact = HdftGenerator.generate(spec);
            for (long seed = 1; seed <= 80; seed++) {
                // beyond 15 failures too: the detours then fall back to columns with a fault
                int failures = (int) (seed * 7 % Math.min(40, spec.leafCount() - 2));
                Fabric fabric = LeafFailures.fail(intact, failures, seed);
                RoutingResult result = engine.route(fabric.index());
                RoutedFabric routed = RoutedFabric.of(fabric.index(), result.tables());
                DeadlockReport report = new DeadlockAnalyzer(routed, VirtualChannels.of(result.tables()), 2).analyze();
                assertThat(report.deadlockFree()).as("%s seed %d, %d failed: %s", text, seed, failures, report.cycle())
                        .isTrue();
                long switchLinks = fabric.links().stream().filter(l -> fabric.isSwitch(l.a()) && fabric.isSwitch(l.b()))
                        .count();
                assertThat(report.channels()).isEqualTo(2 * 2 * switchLinks);
            }
        }
    }

    @Test
    void withoutTheExtraChannelTwoFailedLeavesCloseACycle() {
        // (1, 2) and (5, 6) failed: yx routes around each turn from columns to rows on leaves that xy
        // routes around the other turn from rows to columns, which closes a loop of 8 links.
        HdftSpec spec = HdftSpec.parse("HDFT(8x8;1;1;1)");
        Fabric fabric = HdftGenerator.generate(spec).withoutSwitches(List.of(HdftGenerator.leafGuid(spec, 1, 2),
                HdftGenerator.leafGuid(spec, 5, 6)));
        RoutingResult result = engine.route(fabric.index());
        RoutedFabric routed = RoutedFabric.of(fabric.index(), result.tables());
        DeadlockReport plain = new DeadlockAnalyzer(routed, VirtualChannels.single(), 1).analyze();
        assertThat(plain.deadlockFree()).isFalse();
        assertThat(plain.cycle()).isNotEmpty();
        DeadlockReport withVc = new DeadlockAnalyzer(routed, VirtualChannels.of(result.tables()), 1).analyze();
        assertThat(withVc.deadlockFree()).isTrue();
        assertThat(withVc.channels()).isEqualTo(2 * plain.channels());
        // with no failure there is no column-to-row turn and one channel suffices
        Fabric intact = HdftGenerator.generate(spec);
        RoutedFabric fine = RoutedFabric.of(intact.index(), engine.route(intact.index()).tables());
        assertThat(new DeadlockAnalyzer(fine, VirtualChannels.single(), 1).analyze().deadlockFree()).isTrue();
    }

    @Test
    void randomFaultSetsShowTheCycleThatTheChannelBreaks() {
        HdftSpec spec = HdftSpec.parse("HDFT(8x8;1;1;1)");
        Fabric intact = HdftGenerator.generate(spec);
        int cyclic = 0;
        for (long seed = 1; seed <= 20; seed++) {
            Fabric fabric = LeafFailures.fail(intact, 2 + (int) (seed % 6), seed);
            RoutingResult result = engine.route(fabric.index());
            RoutedFabric routed = RoutedFabric.of(fabric.index(), result.tables());
            if (!new DeadlockAnalyzer(routed, VirtualChannels.single(), 1).analyze().deadlockFree()) {
                cyclic++;
                assertThat(new DeadlockAnalyzer(routed, VirtualChannels.of(result.tables()), 1).analyze()
                        .deadlockFree()).as("seed %d", seed).isTrue();
            }
        }
        assertThat(cyclic).isPositive();
    }

    @Test
    void papersFigure5() {
        // Leaves named "ab" in the paper are row a, column b. With 02 and 20 failed, S1 = 00 -> D1 = 22 is
        // mis-routed along row 0 to a fault-free column (1 or 3; the paper's figure shows 03), then yx;
        // S2 = 01 -> D2 = 12 goes yx through 11; S3 = 31 -> D3 = 13 goes xy through 33.
        HdftSpec spec = HdftSpec.parse("HDFT(4x4;1;1;1)");
        Fabric fabric = HdftGenerator.generate(spec).withoutSwitches(List.of(HdftGenerator.leafGuid(spec, 2, 0),
                HdftGenerator.leafGuid(spec, 0, 2)));
        FabricIndex index = fabric.index();
        ForwardingTables tables = engine.route(index).tables();
        // destination index = (y*X + x)*k: D1 = (2, 2) is 10, D2 = (2, 1) is 6, D3 = (3, 1) is 7
        assertThat(leafPath(spec, index, tables, 0, 0, 10)).containsExactly("(0,0)", "rsw-0-0", "(1,0)", "csw-1-0",
                "(1,2)", "rsw-2-0", "(2,2)");
        assertThat(leafPath(spec, index, tables, 1, 0, 6)).containsExactly("(1,0)", "csw-1-0", "(1,1)", "rsw-1-0",
                "(2,1)");
        assertThat(leafPath(spec, index, tables, 1, 3, 7)).containsExactly("(1,3)", "rsw-3-0", "(3,3)", "csw-3-0",
                "(3,1)");
        // the candidates of the detour are the fault-free columns 1 and 3; node 10 takes 10 mod 2 = 0
        GridPorts grid = new GridPorts(org.fabricmanager.topology.HdftLayout.of(index));
        assertThat(new DetourCandidates(grid).faultFreeColumns()).containsExactly(1, 3);
        assertThat(new DetourCandidates(grid).faultFreeRows()).containsExactly(1, 3);
    }

    @Test
    void severalRowAndColumnSwitchesShareTheLoadByDestinationIndex() {
        HdftSpec spec = HdftSpec.parse("HDFT(4x4;4;2;2)");
        Fabric fabric = HdftGenerator.generate(spec);
        FabricIndex index = fabric.index();
        ForwardingTables tables = engine.route(index).tables();
        int leaf = index.switchId(HdftGenerator.leafGuid(spec, 1, 1));
        int[] uses = new int[spec.leafRadix() + 1];
        for (int d = 0; d < spec.nodeCount(); d++) {
            int port = tables.port(leaf, d);
            uses[port]++;
            int xd = d / 4 % 4;
            int yd = d / 16;
            if (xd == 1 && yd == 1) {
                assertThat(port).isEqualTo(HdftGenerator.leafNodePort(d % 4));
            } else if (xd == 1) {
                assertThat(port).isEqualTo(HdftGenerator.leafColumnPort(spec, d % 2));
            } else {
                assertThat(port).isEqualTo(HdftGenerator.leafRowPort(spec, d % 2));
            }
        }
        // 12 destinations in the row and 36 elsewhere go by row, 12 in the column by column: halved evenly
        assertThat(uses[HdftGenerator.leafRowPort(spec, 0)]).isEqualTo(uses[HdftGenerator.leafRowPort(spec, 1)])
                .isEqualTo(24);
        assertThat(uses[HdftGenerator.leafColumnPort(spec, 0)]).isEqualTo(uses[HdftGenerator.leafColumnPort(spec, 1)])
                .isEqualTo(6);
    }

    @Test
    void tablesCarryTheColumnToRowChannelRule() {
        HdftSpec spec = HdftSpec.parse("HDFT(3x2;2;1;2)");
        FabricIndex index = HdftGenerator.generate(spec).index();
        ForwardingTables tables = engine.route(index).tables();
        VcRules rules = tables.vcRules().orElseThrow();
        assertThat(rules.vcCount()).isEqualTo(2);
        int leaf = index.switchId(HdftGenerator.leafGuid(spec, 2, 1));
        assertThat(rules.portClass(leaf, 1)).isEqualTo(PortClass.NODE);
        assertThat(rules.portClass(leaf, 3)).isEqualTo(PortClass.ROW);
        assertThat(rules.portClass(leaf, 4)).isEqualTo(PortClass.COLUMN);
        assertThat(rules.portClass(leaf, 5)).isEqualTo(PortClass.COLUMN);
        assertThat(rules.transitions(leaf)).containsExactly(new VcTransition(PortClass.COLUMN, PortClass.ROW, 1));
        assertThat(rules.next(leaf, 4, 0, 3)).isEqualTo(1);
        assertThat(rules.next(leaf, 3, 0, 5)).isZero();
        assertThat(rules.next(leaf, 3, 1, 5)).isEqualTo(1);
        assertThat(rules.first(leaf, 3)).isZero();
        int row = index.switchId(HdftGenerator.rowSwitchGuid(spec, 1, 0));
        assertThat(rules.portClass(row, 2)).isEqualTo(PortClass.LEAF);
        assertThat(rules.transitions(row)).isEmpty();
        assertThat(rules.next(row, 1, 1, 2)).isEqualTo(1);
    }

    @Test
    void resultsDoNotDependOnTheThreadCount() {
        HdftSpec spec = HdftSpec.parse("HDFT(8x8;4;1;1)");
        Fabric fabric = LeafFailures.fail(HdftGenerator.generate(spec), 12, 77);
        try (RoutingEngine one = RoutingEngines.create("vtftr", 1); RoutingEngine three = RoutingEngines.create("vtftr", 3)) {
            RoutingResult a = one.route(fabric.index());
            RoutingResult b = three.route(fabric.index());
            assertThat(a.tables().sameAs(b.tables())).isTrue();
            assertThat(a.validity()).isEqualTo(b.validity());
            assertThat(a.timings().phases()).extracting(p -> p.name()).containsExactly("layout", "routes", "validity");
        }
    }

    @Test
    void refusesFabricsThatAreNotTwoDimensionalFatTrees() {
        Fabric pgft = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)"));
        assertThatThrownBy(() -> engine.route(pgft.index())).isInstanceOf(RoutingException.class)
                .hasMessageStartingWith("vtftr routes 2-D fat trees (rows and columns of leaf switches) only: not a 2-D fat"
                        + " tree: ");
    }

    @Test
    void aLeafCutOffFromItsRowIsStillReachedThroughItsColumn() {
        // every row switch of row 1 fails: its leaves each get a row of their own; routes to and from
        // them turn once more (column, row, column), the second column part on channel 1
        HdftSpec spec = HdftSpec.parse("HDFT(4x4;1;1;1)");
        Fabric fabric = HdftGenerator.generate(spec).withoutSwitches(List.of(HdftGenerator.rowSwitchGuid(spec, 1, 0),
                HdftGenerator.leafGuid(spec, 2, 2)));
        RoutingResult result = engine.route(fabric.index());
        assertThat(result.validity().isValid()).isTrue();
        RoutedFabric routed = RoutedFabric.of(fabric.index(), result.tables());
        assertThat(new DeadlockAnalyzer(routed, VirtualChannels.of(result.tables()), 1).analyze().deadlockFree()).isTrue();
        // (0, 1) -> (3, 1): column 0 to a fault-free row, row to column 3, column 3 down to row 1
        assertThat(leafPath(spec, fabric.index(), result.tables(), 0, 1, 7)).hasSize(7)
                .startsWith("(0,1)", "csw-0-0").endsWith("csw-3-0", "(3,1)");
    }

    @Test
    void aLeafCutOffFromEveryOtherLeafMakesTheRoutingInvalidNotBroken() {
        // (0, 0)'s row and column have no other leaf left: nothing reaches it, it reaches nothing
        HdftSpec spec = HdftSpec.parse("HDFT(4x4;1;1;1)");
        List<Long> failed = new ArrayList<>();
        for (int i = 1; i < 4; i++) {
            failed.add(HdftGenerator.leafGuid(spec, i, 0));
            failed.add(HdftGenerator.leafGuid(spec, 0, i));
        }
        Fabric fabric = HdftGenerator.generate(spec).withoutSwitches(failed);
        RoutingResult result = engine.route(fabric.index());
        assertThat(result.validity().unreachablePairs()).isEqualTo(2 * 9);
        assertThat(result.validity().examples()).contains(new org.fabricmanager.routing.Validity.LeafPair(
                HdftGenerator.leafGuid(spec, 0, 0), HdftGenerator.leafGuid(spec, 1, 1)));
        int corner = fabric.index().switchId(HdftGenerator.leafGuid(spec, 0, 0));
        assertThat(result.tables().port(corner, 5)).isEqualTo(ForwardingTables.NO_ROUTE);
        RoutedFabric routed = RoutedFabric.of(fabric.index(), result.tables());
        assertThat(new DeadlockAnalyzer(routed, VirtualChannels.of(result.tables()), 1).analyze().deadlockFree()).isTrue();
    }

    @Test
    void tablesAreTheSameOnlyWithTheSameChannelRules() {
        HdftSpec spec = HdftSpec.parse("HDFT(3x3;1;1;1)");
        FabricIndex index = HdftGenerator.generate(spec).index();
        ForwardingTables tables = engine.route(index).tables();
        assertThat(tables.sameAs(engine.route(index).tables())).isTrue();
        int[] ports = new int[index.switchCount()];
        for (int s = 0; s < ports.length; s++) {
            ports[s] = index.switchPorts(s);
        }
        VcRules none = VcRules.builder(ports, 2).build();
        assertThat(tables.sameAs(tables.withVcRules(none))).isFalse();
        assertThatThrownBy(() -> tables.withVcRules(VcRules.builder(new int[] {4}, 2).build()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> VcRules.builder(ports, 2).transitions(0,
                List.of(new VcTransition(PortClass.ROW, PortClass.COLUMN, 2)))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void degradedSwitchesAndCablesLeaveRoutesDeliveredOrUnroutedAtTheSourceAndDeadlockFree() {
        // failed leaves, row and column switches and cut cables together: a route that leaves its
        // source leaf always arrives (every leaf it crosses continues it), and two channels suffice
        HdftSpec spec = HdftSpec.parse("HDFT(6x6;2;2;2)");
        Fabric intact = HdftGenerator.generate(spec);
        int unroutedFabrics = 0;
        for (long seed = 1; seed <= 60; seed++) {
            Fabric fabric = org.fabricmanager.topology.Degrader.degrade(LeafFailures.fail(intact, (int) (seed % 9), seed),
                    org.fabricmanager.topology.DegradationPlan.random(0.02 * (seed % 4), (int) (seed % 7), seed));
            FabricIndex index = fabric.index();
            RoutingResult result = engine.route(index);
            int[] path = new int[index.switchCount() + 1];
            for (int d = 0; d < index.destinationCount(); d++) {
                int pos = index.nodeByDestination(d);
                if (index.nodeLeaf(pos) == FabricIndex.NONE) {
                    continue;
                }
                for (int source : index.leaves()) {
                    if (source != index.nodeLeaf(pos) && result.tables().port(source, d) != ForwardingTables.NO_ROUTE
                            && walk(index, result.tables(), source, d, pos, path) < 0) {
                        fail("seed " + seed + ": the route from " + index.switchGuid(source) + " to node " + d
                                + " leaves its leaf but does not arrive");
                    }
                }
            }
            unroutedFabrics += result.validity().isValid() ? 0 : 1;
            RoutedFabric routed = RoutedFabric.of(index, result.tables());
            assertThat(new DeadlockAnalyzer(routed, VirtualChannels.of(result.tables()), 1).analyze().deadlockFree())
                    .as("seed %d", seed).isTrue();
        }
        // most of these fabrics stay fully routable
        assertThat(unroutedFabrics).isLessThan(30);
    }

    // ---- helpers ------------------------------------------------------------------------------

    /**
     * Follows the tables from {@code source} to node {@code d}, writing the switches crossed into
     * {@code path}; returns the switch-to-switch links of the route, or -1 when it fails or loops.
     */
    static int walk(FabricIndex index, ForwardingTables tables, int source, int d, int pos, int[] path) {
        int s = source;
        for (int hops = 0; hops < path.length; hops++) {
            path[hops] = s;
            int port = tables.port(s, d);
            if (port == ForwardingTables.NO_ROUTE) {
                return -1;
            }
            if (index.peerNodes(s)[port] != FabricIndex.NONE) {
                return index.peerNodes(s)[port] == pos ? hops : -1;
            }
            s = index.peerSwitches(s)[port];
            if (s == FabricIndex.NONE) {
                return -1;
            }
        }
        return -1;
    }

    private static List<String> leafPath(HdftSpec spec, FabricIndex index, ForwardingTables tables, int x, int y, int d) {
        int source = index.switchId(HdftGenerator.leafGuid(spec, x, y));
        int[] path = new int[index.switchCount() + 1];
        int links = walk(index, tables, source, d, index.nodeByDestination(d), path);
        assertThat(links).isNotNegative();
        List<String> names = new ArrayList<>();
        Fabric fabric = index.fabric();
        for (int i = 0; i <= links; i++) {
            long g = index.switchGuid(path[i]);
            names.add(((g >>> 32) & 0xF) == HdftGenerator.LEAF_ROLE ? cell(spec, g)
                    : fabric.switchByGuid(g).orElseThrow().name());
        }
        return names;
    }

    static int x(HdftSpec spec, long leafGuid) {
        return (int) (leafGuid & 0xFFFFFFFFL) % spec.columns();
    }

    static int y(HdftSpec spec, long leafGuid) {
        return (int) (leafGuid & 0xFFFFFFFFL) / spec.columns();
    }

    static String cell(HdftSpec spec, long leafGuid) {
        return "(" + x(spec, leafGuid) + "," + y(spec, leafGuid) + ")";
    }

    private static String cells(HdftSpec spec, List<Long> leaves) {
        List<String> out = new ArrayList<>();
        for (long g : leaves) {
            out.add(cell(spec, g));
        }
        return out.toString();
    }
}
