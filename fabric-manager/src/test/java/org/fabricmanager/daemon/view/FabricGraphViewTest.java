package org.fabricmanager.daemon.view;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FabricGraph;
import org.fabricmanager.daemon.api.SwitchState;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

class FabricGraphViewTest {
    private static final String[] THREE_LEVEL = {"PGFT(3;4,4,4;1,4,4;1,1,1)", "PGFT(3;8,8,8;1,8,8;1,1,1)",
            "PGFT(3;4,4,6;1,4,2;1,1,1)", "PGFT(3;2,4,8;1,2,4;1,2,1)"};

    private static Fabric pgft(String spec) {
        return PgftGenerator.generate(PgftSpec.parse(spec));
    }

    @Test
    void leavesAreLevelOneAndEveryCableBelowTheTopStaysInsideOnePod() {
        for (String spec : THREE_LEVEL) {
            Fabric fabric = pgft(spec);
            FabricLayout layout = FabricLayout.of(fabric);
            assertThat(layout.topLevel()).as(spec).isEqualTo(3);
            assertThat(layout.size()).as(spec).isEqualTo(fabric.switches().size());
            Set<Long> leaves = new HashSet<>();
            fabric.links().stream().filter(l -> fabric.isNode(l.a()) || fabric.isNode(l.b()))
                    .forEach(l -> leaves.add(fabric.isSwitch(l.a()) ? l.a() : l.b()));
            for (Map.Entry<Long, FabricLayout.Placement> e : layout.placements().entrySet()) {
                assertThat(e.getValue().level() == 1).as(spec + " " + Guids.format(e.getKey()))
                        .isEqualTo(leaves.contains(e.getKey()));
                assertThat(e.getValue().pod()).as(spec).isEqualTo(e.getValue().level() < 3);
            }
            int pods = 0;
            for (Link l : fabric.links()) {
                if (!fabric.isSwitch(l.a()) || !fabric.isSwitch(l.b())) {
                    continue;
                }
                FabricLayout.Placement a = layout.placement(l.a());
                FabricLayout.Placement b = layout.placement(l.b());
                if (a.level() < 3 && b.level() < 3) {
                    assertThat(a.group()).as(spec + " cable " + l).isEqualTo(b.group());
                }
                pods = Math.max(pods, Math.max(a.level() < 3 ? a.group() + 1 : 0, b.level() < 3 ? b.group() + 1 : 0));
            }
            assertThat(pods).as(spec + ": pods found").isGreaterThan(1);
            // the top level is cut into as many blocks as there are pods (at most 16), none empty
            Map<Integer, Integer> topBlocks = new HashMap<>();
            layout.placements().values().stream().filter(p -> p.level() == 3)
                    .forEach(p -> topBlocks.merge(p.group(), 1, Integer::sum));
            assertThat(topBlocks.size()).as(spec).isLessThanOrEqualTo(Math.min(pods, FabricLayout.MAX_BLOCKS));
            assertThat(topBlocks.keySet()).as(spec).allMatch(g -> g >= 0 && g < topBlocks.size());
        }
    }

    @Test
    void theTopBlocksAreThePlanesSoThatEachSwitchBelowCablesIntoOneBlock() {
        for (String spec : new String[] {"PGFT(3;8,8,8;1,8,8;1,1,1)", "PGFT(3;4,4,4;1,4,4;1,1,1)"}) {
            Fabric fabric = pgft(spec);
            FabricLayout layout = FabricLayout.of(fabric);
            Map<Long, Set<Integer>> blocksBelow = new HashMap<>();
            for (Link l : fabric.links()) {
                if (!fabric.isSwitch(l.a()) || !fabric.isSwitch(l.b())) {
                    continue;
                }
                FabricLayout.Placement a = layout.placement(l.a());
                FabricLayout.Placement b = layout.placement(l.b());
                if (a.level() == 3 || b.level() == 3) {
                    long below = a.level() == 3 ? l.b() : l.a();
                    blocksBelow.computeIfAbsent(below, k -> new HashSet<>()).add(a.level() == 3 ? a.group() : b.group());
                }
            }
            assertThat(blocksBelow).as(spec).isNotEmpty();
            assertThat(blocksBelow.values()).as(spec + ": the top switches of a level-2 switch are one block")
                    .allMatch(blocks -> blocks.size() == 1);
        }
    }

    @Test
    void aFailureMovesNoOtherSwitch() {
        Fabric full = pgft("PGFT(3;8,8,8;1,8,8;1,1,1)");
        FabricLayout before = FabricLayout.of(full);
        List<Long> top = full.switches().stream().map(s -> s.guid()).filter(g -> before.placement(g).level() == 3)
                .sorted().toList();
        List<Long> gone = List.of(top.get(0), top.get(9));
        FabricLayout after = FabricLayout.of(full.withoutSwitches(gone)).keeping(before, 100);
        for (Map.Entry<Long, FabricLayout.Placement> e : before.placements().entrySet()) {
            assertThat(after.placement(e.getKey())).as(Guids.format(e.getKey())).isEqualTo(e.getValue());
        }
    }

    @Test
    void twoLevelFabricsAreCutIntoAtMostSixteenBlocksPerLevel() {
        Fabric fabric = pgft("PGFT(2;8,40;1,8;1,1)");
        FabricLayout layout = FabricLayout.of(fabric);
        assertThat(layout.topLevel()).isEqualTo(2);
        for (int level = 1; level <= 2; level++) {
            int l = level;
            Set<Integer> groups = new HashSet<>();
            layout.placements().values().stream().filter(p -> p.level() == l).forEach(p -> {
                groups.add(p.group());
                assertThat(p.pod()).isFalse();
                assertThat(p.label()).startsWith("L" + l + " block ");
            });
            assertThat(groups.size()).as("level " + l).isBetween(1, FabricLayout.MAX_BLOCKS);
        }
    }

    @Test
    void aSwitchThatLeftTheFabricKeepsItsPlaceAndItsCables() {
        Fabric full = pgft("PGFT(3;4,4,4;1,4,4;1,1,1)");
        FabricLayout before = FabricLayout.of(full);
        long spine = full.switches().stream().map(s -> s.guid()).filter(g -> before.placement(g).level() == 3)
                .findFirst().orElseThrow();
        long leaf = full.switches().stream().map(s -> s.guid()).filter(g -> before.placement(g).level() == 1)
                .findFirst().orElseThrow();
        FabricLayout after = FabricLayout.of(full.withoutSwitches(List.of(spine, leaf))).keeping(before, 100);
        assertThat(after.placement(spine)).isEqualTo(before.placement(spine));
        assertThat(after.placement(leaf)).isEqualTo(before.placement(leaf));
        assertThat(after.cables()).hasSameSizeAs(before.cables());
        assertThat(after.cables().stream().filter(c -> c.a() == spine || c.b() == spine)).hasSize(4);
        // at most `limit` switches are kept from before
        assertThat(FabricLayout.of(full.withoutSwitches(List.of(spine, leaf))).keeping(before, 1).size())
                .isEqualTo(full.switches().size() - 1);
    }

    @Test
    void switchStatesFollowTheFaultsThenAdmissionThenThePush() {
        // ringDead, pendingAdmission, admitted, inSync, failing
        assertThat(SwitchState.of(true, false, false, false, false)).as("the ring's verdict, session dropped")
                .isEqualTo(SwitchState.DEAD);
        assertThat(SwitchState.of(true, false, true, true, false)).as("reconnected and admitted since the verdict")
                .isEqualTo(SwitchState.IN_SYNC);
        assertThat(SwitchState.of(true, true, false, false, false)).as("reconnected, waiting for admission")
                .isEqualTo(SwitchState.DEAD);
        assertThat(SwitchState.of(false, false, false, false, false)).as("known, no session").isEqualTo(SwitchState.DEAD);
        assertThat(SwitchState.of(false, true, false, false, false)).isEqualTo(SwitchState.PENDING_ADMISSION);
        assertThat(SwitchState.of(false, false, true, false, true)).isEqualTo(SwitchState.FAILING);
        assertThat(SwitchState.of(false, false, true, true, false)).isEqualTo(SwitchState.IN_SYNC);
        assertThat(SwitchState.of(false, false, true, false, false)).isEqualTo(SwitchState.PENDING);
        for (SwitchState a : SwitchState.values()) {
            for (SwitchState b : SwitchState.values()) {
                assertThat(a.worse(b)).isEqualTo(b.worse(a)).isIn(a, b);
                assertThat(a.worse(b).ordinal()).isEqualTo(Math.max(a.ordinal(), b.ordinal()));
            }
            assertThat(a.worse(SwitchState.DEAD)).isEqualTo(SwitchState.DEAD);
        }
    }

    @Test
    void groupsCountTheirSwitchesAndShowTheWorst() {
        Fabric fabric = pgft("PGFT(3;4,4,4;1,4,4;1,1,1)");
        FabricLayout layout = FabricLayout.of(fabric);
        Map<Long, SwitchState> states = new LinkedHashMap<>();
        Map<Long, String> names = new HashMap<>();
        fabric.switches().forEach(s -> {
            states.put(s.guid(), SwitchState.IN_SYNC);
            names.put(s.guid(), s.name());
        });
        long[] leaves = fabric.switches().stream().mapToLong(s -> s.guid()).filter(g -> layout.placement(g).level() == 1)
                .sorted().toArray();
        states.put(leaves[0], SwitchState.PENDING);
        states.put(leaves[1], SwitchState.DEAD);
        long stranger = 0x7777L; // connected, never routed: not placed
        states.put(stranger, SwitchState.PENDING_ADMISSION);
        FabricGraph g = FabricGraphView.assemble(5, "dmodc", DaemonState.PUSHING, layout, states, names, c -> "up");
        assertThat(g.switchCount()).isEqualTo(49);
        assertThat(g.states()).containsEntry(SwitchState.IN_SYNC, 46).containsEntry(SwitchState.PENDING, 1)
                .containsEntry(SwitchState.DEAD, 1).containsEntry(SwitchState.PENDING_ADMISSION, 1)
                .containsEntry(SwitchState.FAILING, 0);
        assertThat(g.groups().stream().mapToInt(FabricGraph.Group::switches).sum()).isEqualTo(49);
        FabricGraph.Group pod = g.groups().stream().filter(x -> x.level() == 1
                && x.group() == layout.placement(leaves[1]).group()).findFirst().orElseThrow();
        assertThat(pod.worst()).isEqualTo(SwitchState.DEAD);
        assertThat(pod.label()).startsWith("pod ");
        FabricGraph.Group unplaced = g.groups().get(0);
        assertThat(unplaced.level()).isZero();
        assertThat(unplaced.label()).isEqualTo("not placed");
        assertThat(unplaced.worst()).isEqualTo(SwitchState.PENDING_ADMISSION);
        for (FabricGraph.Group x : g.groups()) {
            assertThat(x.states().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(x.switches());
        }
        // switches come by level, group, GUID: what the page draws left to right
        for (int i = 1; i < g.switches().size(); i++) {
            FabricGraph.Node p = g.switches().get(i - 1);
            FabricGraph.Node n = g.switches().get(i);
            assertThat(p.level() < n.level() || p.level() == n.level() && (p.group() < n.group()
                    || p.group() == n.group() && p.guid().compareTo(n.guid()) < 0)).as(p + " before " + n).isTrue();
        }
        assertThat(g.links()).containsEntry("up", layout.cables().size()).containsEntry("failed", 0);
        assertThat(g.downLinks()).isEmpty();
    }

    @Test
    void cablesDownAreListedQuarantinedFirstAndCappedWithTheirTotal() {
        Fabric fabric = pgft("PGFT(3;8,8,8;1,8,8;1,1,1)");
        FabricLayout layout = FabricLayout.of(fabric);
        Map<Long, SwitchState> states = new LinkedHashMap<>();
        fabric.switches().forEach(s -> states.put(s.guid(), SwitchState.IN_SYNC));
        FabricLayout.Cable quarantined = layout.cables().get(layout.cables().size() - 1);
        FabricGraph g = FabricGraphView.assemble(1, "dmodc", DaemonState.CONVERGED, layout, states, Map.of(),
                c -> c.equals(quarantined) ? "quarantined" : "failed");
        assertThat(layout.cables()).hasSize(1024);
        assertThat(g.links()).containsEntry("failed", 1023).containsEntry("quarantined", 1).containsEntry("up", 0);
        assertThat(g.downLinksTotal()).isEqualTo(1024);
        assertThat(g.downLinks()).hasSize(FabricGraph.MAX_DOWN_LINKS);
        assertThat(g.downLinks().get(0).state()).isEqualTo("quarantined");
        assertThat(g.downLinks().get(0).a()).isEqualTo(Guids.format(quarantined.a()));
        assertThat(g.downLinks().subList(1, g.downLinks().size())).allMatch(c -> c.state().equals("failed"));
    }
}
