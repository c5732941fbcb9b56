package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FabricChangesTest {
    private static final Fabric FABRIC = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)"));

    @Test
    void derivedFabricsEqualTheFabricsBuiltFromScratch() {
        // with an LMC too: a node is then 2^lmc positions, which a removed or added node takes or brings whole
        for (int lmc = 0; lmc <= 2; lmc++) {
            derive(40, 4, 3, lmc);
            // link changes only: indexes are then derived from the previous one, step after step
            derive(40, Integer.MAX_VALUE, Integer.MAX_VALUE, lmc);
            // switches going too: ids renumbered; and coming back (an added switch, its cables with it)
            derive(40, 2, Integer.MAX_VALUE, lmc);
        }
    }

    /**
     * Random changes, a switch removed one step in {@code switchOdds}, a node one step in {@code nodeOdds}, on the
     * fabric with {@code lmc}.
     */
    private static void derive(int seeds, int switchOdds, int nodeOdds, int lmc) {
        for (long seed = 1; seed <= seeds; seed++) {
            Random random = new Random(seed);
            Fabric current = FABRIC.withLmc(lmc);
            List<FabricSwitch> gone = new ArrayList<>();
            List<EndNode> goneNodes = new ArrayList<>();
            for (int step = 0; step < 6; step++) {
                List<Link> links = current.links();
                // a switch removed at an earlier step comes back, one step in two; so does a node, with its index
                List<FabricSwitch> joining = new ArrayList<>();
                if (!gone.isEmpty() && random.nextBoolean()) {
                    joining.add(gone.remove(random.nextInt(gone.size())));
                }
                List<EndNode> arriving = new ArrayList<>();
                if (!goneNodes.isEmpty() && random.nextBoolean()) {
                    arriving.add(goneNodes.remove(random.nextInt(goneNodes.size())));
                }
                Set<Long> joiningGuids = new HashSet<>();
                joining.forEach(j -> joiningGuids.add(j.guid()));
                arriving.forEach(n -> joiningGuids.add(n.guid()));
                Set<Long> removedSwitches = new HashSet<>();
                Set<Long> removedNodes = new HashSet<>();
                List<Link> removedLinks = new ArrayList<>();
                if (random.nextInt(switchOdds) == 0 && current.switches().size() > 2) {
                    removedSwitches.add(current.switches().get(random.nextInt(current.switches().size())).guid());
                }
                if (random.nextInt(nodeOdds) == 0 && !current.nodes().isEmpty()) {
                    removedNodes.add(current.nodes().get(random.nextInt(current.nodes().size())).guid());
                }
                for (int k = random.nextInt(4); k > 0; k--) {
                    Link l = links.get(random.nextInt(links.size()));
                    if (!removedSwitches.contains(l.a()) && !removedSwitches.contains(l.b())) {
                        removedLinks.add(random.nextBoolean() ? l : new Link(l.b(), l.bPort(), l.a(), l.aPort()));
                    }
                }
                // cables of the intact fabric whose ends are free again come back
                List<Link> added = new ArrayList<>();
                Set<PortRef> used = new HashSet<>();
                for (Link l : current.links()) {
                    if (!removedLinks.contains(l) && !removedLinks.contains(new Link(l.b(), l.bPort(), l.a(), l.aPort()))) {
                        used.add(new PortRef(l.a(), l.aPort()));
                        used.add(new PortRef(l.b(), l.bPort()));
                    }
                }
                for (Link l : FABRIC.links()) {
                    boolean endsThere = (current.isSwitch(l.a()) || current.isNode(l.a()) || joiningGuids.contains(l.a()))
                            && (current.isSwitch(l.b()) || current.isNode(l.b()) || joiningGuids.contains(l.b()))
                            && !removedSwitches.contains(l.a()) && !removedSwitches.contains(l.b())
                            && !removedNodes.contains(l.a()) && !removedNodes.contains(l.b());
                    // a joining switch's cables come with it (most of them: a free end of each is needed)
                    boolean joins = joiningGuids.contains(l.a()) || joiningGuids.contains(l.b());
                    if (endsThere && !used.contains(new PortRef(l.a(), l.aPort())) && !used.contains(new PortRef(l.b(), l.bPort()))
                            && (joins || random.nextInt(3) == 0)) {
                        added.add(l);
                        used.add(new PortRef(l.a(), l.aPort()));
                        used.add(new PortRef(l.b(), l.bPort()));
                    }
                }
                Fabric derived = current.withChanges(removedSwitches, removedNodes, removedLinks, joining, arriving, added);
                for (FabricSwitch sw : current.switches()) {
                    if (removedSwitches.contains(sw.guid())) {
                        gone.add(sw);
                    }
                }
                for (EndNode n : current.nodes()) {
                    if (removedNodes.contains(n.guid())) {
                        goneNodes.add(n);
                    }
                }
                List<FabricSwitch> switches = new ArrayList<>(current.switches().stream()
                        .filter(s -> !removedSwitches.contains(s.guid())).toList());
                switches.addAll(joining);
                List<EndNode> nodes = new ArrayList<>(current.nodes().stream().filter(n -> !removedNodes.contains(n.guid())).toList());
                nodes.addAll(arriving);
                List<Link> expectedLinks = new ArrayList<>();
                for (Link l : current.links()) {
                    if (!removedLinks.contains(l) && !removedLinks.contains(new Link(l.b(), l.bPort(), l.a(), l.aPort()))
                            && !removedSwitches.contains(l.a()) && !removedSwitches.contains(l.b())
                            && !removedNodes.contains(l.a()) && !removedNodes.contains(l.b())) {
                        expectedLinks.add(l);
                    }
                }
                expectedLinks.addAll(added);
                Fabric built = new Fabric(current.pgft().orElse(null), switches, nodes, expectedLinks).withLmc(lmc);
                String what = "LMC " + lmc + " seed " + seed + " step " + step;
                assertThat(derived).as(what).isEqualTo(built);
                assertSameIndex(derived.index(), built.index(), what);
                assertThat(derived.index().nodeCount()).as(what).isEqualTo(nodes.size() << lmc);
                if (removedSwitches.isEmpty() && joining.isEmpty()) {
                    // derived, not built again: the switch table is the previous index's own
                    assertThat(derived.index().switchTable().guid()).as(what)
                            .isSameAs(current.index().switchTable().guid());
                }
                for (FabricSwitch s : built.switches()) {
                    assertThat(derived.switchByGuid(s.guid())).contains(s);
                }
                for (EndNode n : built.nodes()) {
                    assertThat(derived.nodeByGuid(n.guid())).contains(n);
                }
                for (long g : removedNodes) {
                    assertThat(derived.isNode(g)).isFalse();
                }
                current = derived;
            }
        }
    }

    /** Every array of the two indexes, entry for entry. */
    private static void assertSameIndex(FabricIndex a, FabricIndex b, String what) {
        assertThat(a.switchCount()).as(what).isEqualTo(b.switchCount());
        for (int s = 0; s < a.switchCount(); s++) {
            assertThat(a.switchGuid(s)).as(what).isEqualTo(b.switchGuid(s));
            assertThat(a.switchPorts(s)).as(what).isEqualTo(b.switchPorts(s));
            assertThat(a.peerSwitches(s)).as(what + " peers of " + s).isEqualTo(b.peerSwitches(s));
            assertThat(a.peerPorts(s)).as(what + " peer ports of " + s).isEqualTo(b.peerPorts(s));
            assertThat(a.peerNodes(s)).as(what + " nodes of " + s).isEqualTo(b.peerNodes(s));
            assertThat(a.leafNumber(s)).as(what).isEqualTo(b.leafNumber(s));
        }
        assertThat(a.groupStartArray()).as(what + " groups").isEqualTo(b.groupStartArray());
        assertThat(a.groupNeighbourArray()).as(what + " group neighbours").isEqualTo(b.groupNeighbourArray());
        assertThat(a.groupPortStartArray()).as(what + " group ports").isEqualTo(b.groupPortStartArray());
        assertThat(a.groupPortArray()).as(what + " ports").isEqualTo(b.groupPortArray());
        assertThat(a.nodeCount()).as(what).isEqualTo(b.nodeCount());
        assertThat(a.destinationCount()).as(what).isEqualTo(b.destinationCount());
        for (int i = 0; i < a.nodeCount(); i++) {
            assertThat(a.nodeGuid(i)).as(what).isEqualTo(b.nodeGuid(i));
            assertThat(a.nodeIndex(i)).as(what).isEqualTo(b.nodeIndex(i));
            assertThat(a.nodeLeaf(i)).as(what + " leaf of node " + i).isEqualTo(b.nodeLeaf(i));
            assertThat(a.nodeLeafPort(i)).as(what).isEqualTo(b.nodeLeafPort(i));
        }
        for (int d = 0; d < a.destinationCount(); d++) {
            assertThat(a.nodeByDestination(d)).as(what).isEqualTo(b.nodeByDestination(d));
        }
        assertThat(a.leaves()).as(what + " leaves").isEqualTo(b.leaves());
        for (int leaf = 0; leaf <= a.leafCount(); leaf++) {
            assertThat(a.leafNodeStart(leaf)).as(what).isEqualTo(b.leafNodeStart(leaf));
        }
        assertThat(a.leafNodeArray()).as(what + " leaf nodes").isEqualTo(b.leafNodeArray());
    }

    @Test
    void invalidChangesAreRefusedWithTheirLink() {
        Link l = FABRIC.links().get(0);
        assertThatThrownBy(() -> FABRIC.withChanges(Set.of(), Set.of(), List.of(), List.of(l)))
                .isInstanceOf(TopologyException.class).hasMessageContaining("already in use");
        Link unknown = new Link(0x77, 1, l.b(), l.bPort());
        assertThatThrownBy(() -> FABRIC.withChanges(Set.of(), Set.of(), List.of(l), List.of(unknown)))
                .hasMessageContaining("unknown GUID 0x0000000000000077");
        Link absent = new Link(l.a(), l.aPort(), l.b(), l.bPort() + 1);
        assertThatThrownBy(() -> FABRIC.withChanges(Set.of(), Set.of(), List.of(absent), List.of()))
                .hasMessageContaining("is not in the fabric");
        long sw = FABRIC.switches().get(0).guid();
        Link tooFar = new Link(sw, 99, l.b(), l.bPort());
        assertThatThrownBy(() -> FABRIC.withChanges(Set.of(), Set.of(), List.of(l), List.of(tooFar)))
                .hasMessageContaining("outside the ports");
        FabricSwitch present = FABRIC.switches().get(1);
        assertThatThrownBy(() -> FABRIC.withChanges(Set.of(), Set.of(), List.of(), List.of(present), List.of(), List.of()))
                .hasMessageContaining("GUID already in the fabric");
        FabricSwitch newcomer = new FabricSwitch(0x99, "s99", 4);
        Link beyond = new Link(0x99, 5, l.b(), l.bPort());
        assertThatThrownBy(() -> FABRIC.withChanges(Set.of(), Set.of(), List.of(l), List.of(newcomer), List.of(), List.of(beyond)))
                .hasMessageContaining("outside the ports");
        EndNode node = FABRIC.nodes().get(0);
        assertThatThrownBy(() -> FABRIC.withChanges(Set.of(), Set.of(), List.of(), List.of(), List.of(node), List.of()))
                .hasMessageContaining("GUID already in the fabric");
        EndNode sameIndex = new EndNode(0x1234, "n", FABRIC.nodes().get(1).index());
        assertThatThrownBy(() -> FABRIC.withChanges(Set.of(), Set.of(), List.of(), List.of(), List.of(sameIndex), List.of()))
                .hasMessageContaining("is another node's");
        // the node that held the index leaves in the same change: its index is free
        assertThat(FABRIC.withChanges(Set.of(), Set.of(FABRIC.nodes().get(1).guid()), List.of(), List.of(),
                List.of(sameIndex), List.of()).isNode(0x1234)).isTrue();
    }
}
