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
        for (long seed = 1; seed <= 40; seed++) {
            Random random = new Random(seed);
            Fabric current = FABRIC;
            for (int step = 0; step < 6; step++) {
                List<Link> links = current.links();
                Set<Long> removedSwitches = new HashSet<>();
                Set<Long> removedNodes = new HashSet<>();
                List<Link> removedLinks = new ArrayList<>();
                if (random.nextInt(4) == 0 && current.switches().size() > 2) {
                    removedSwitches.add(current.switches().get(random.nextInt(current.switches().size())).guid());
                }
                if (random.nextInt(3) == 0 && !current.nodes().isEmpty()) {
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
                    boolean endsThere = (current.isSwitch(l.a()) || current.isNode(l.a())) && (current.isSwitch(l.b())
                            || current.isNode(l.b())) && !removedSwitches.contains(l.a()) && !removedSwitches.contains(l.b())
                            && !removedNodes.contains(l.a()) && !removedNodes.contains(l.b());
                    if (endsThere && !used.contains(new PortRef(l.a(), l.aPort())) && !used.contains(new PortRef(l.b(), l.bPort()))
                            && random.nextInt(3) == 0) {
                        added.add(l);
                        used.add(new PortRef(l.a(), l.aPort()));
                        used.add(new PortRef(l.b(), l.bPort()));
                    }
                }
                Fabric derived = current.withChanges(removedSwitches, removedNodes, removedLinks, added);
                List<FabricSwitch> switches = current.switches().stream().filter(s -> !removedSwitches.contains(s.guid()))
                        .toList();
                List<EndNode> nodes = current.nodes().stream().filter(n -> !removedNodes.contains(n.guid())).toList();
                List<Link> expectedLinks = new ArrayList<>();
                for (Link l : current.links()) {
                    if (!removedLinks.contains(l) && !removedLinks.contains(new Link(l.b(), l.bPort(), l.a(), l.aPort()))
                            && !removedSwitches.contains(l.a()) && !removedSwitches.contains(l.b())
                            && !removedNodes.contains(l.a()) && !removedNodes.contains(l.b())) {
                        expectedLinks.add(l);
                    }
                }
                expectedLinks.addAll(added);
                Fabric built = new Fabric(current.pgft().orElse(null), switches, nodes, expectedLinks);
                assertThat(derived).as("seed %d step %d", seed, step).isEqualTo(built);
                assertThat(derived.index().switchCount()).isEqualTo(built.index().switchCount());
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
    }
}
