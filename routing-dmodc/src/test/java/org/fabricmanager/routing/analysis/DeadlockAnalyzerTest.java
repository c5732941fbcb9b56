package org.fabricmanager.routing.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.junit.jupiter.api.Test;

class DeadlockAnalyzerTest {

    /** Four switches in a ring, one node each; port 1 node, port 2 clockwise, port 3 counter-clockwise. */
    private static Fabric ring() {
        List<FabricSwitch> switches = new ArrayList<>();
        List<EndNode> nodes = new ArrayList<>();
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            switches.add(new FabricSwitch(0x100 + i, "r" + i, 3));
            nodes.add(new EndNode(0x200 + i, "n" + i, i));
            links.add(new Link(0x100 + i, 1, 0x200 + i, 1));
            links.add(new Link(0x100 + i, 2, 0x100 + (i + 1) % 4, 3));
        }
        return new Fabric(null, switches, nodes, links);
    }

    /** Every switch sends to its own node on port 1, to the node opposite clockwise, to the previous one counter-clockwise. */
    private static ForwardingTables.Builder clockwise(FabricIndex index) {
        long[] guids = new long[4];
        for (int s = 0; s < 4; s++) {
            guids[s] = index.switchGuid(s);
        }
        ForwardingTables.Builder b = ForwardingTables.builder(guids, 4);
        for (int s = 0; s < 4; s++) {
            b.set(s, s, 1);
            b.set(s, (s + 1) % 4, 2);
            b.set(s, (s + 2) % 4, 2);
            b.set(s, (s + 3) % 4, 3);
        }
        return b;
    }

    @Test
    void findsTheClassicRingCycle() {
        FabricIndex index = ring().index();
        DeadlockReport report = new DeadlockAnalyzer(RoutedFabric.of(index, clockwise(index).build())).analyze();
        assertThat(report.deadlockFree()).isFalse();
        assertThat(report.channels()).isEqualTo(8);
        // clockwise two-hop routes make each clockwise link wait for the next one
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            expected.add(new Channel(0x100 + i, 2, 0x100 + (i + 1) % 4, 3, 0).toString());
        }
        assertThat(report.cycle()).extracting(Channel::toString).containsExactlyInAnyOrderElementsOf(expected);
        assertIsACycle(report.cycle());
        // dependencies: the four clockwise turns only (one-hop routes depend on nothing)
        assertThat(report.dependencies()).isEqualTo(4);
        assertThat(report.usedChannels()).isEqualTo(8);
    }

    @Test
    void breakingOneTurnBreaksTheCycle() {
        FabricIndex index = ring().index();
        ForwardingTables.Builder b = clockwise(index);
        b.set(0, 2, 3); // switch 0 reaches node 2 counter-clockwise: 0 -> 3 -> 2
        DeadlockReport report = new DeadlockAnalyzer(RoutedFabric.of(index, b.build())).analyze();
        assertThat(report.deadlockFree()).isTrue();
        assertThat(report.cycle()).isEmpty();
        assertThat(report.dependencies()).isEqualTo(4);
    }

    @Test
    void aRoutingLoopIsADependencyCycle() {
        FabricIndex index = HandTables.fabric().index();
        ForwardingTables.Builder b = HandTables.balanced(index);
        b.set(HandTables.S0, 2, 1);
        DeadlockReport report = new DeadlockAnalyzer(RoutedFabric.of(index, b.build())).analyze();
        assertThat(report.deadlockFree()).isFalse();
        assertThat(report.cycle()).hasSize(2);
        assertIsACycle(report.cycle());
    }

    @Test
    void countsTheDependenciesOfBalancedFatTreeRoutes() {
        FabricIndex index = HandTables.fabric().index();
        DeadlockReport report = new DeadlockAnalyzer(RoutedFabric.of(index, HandTables.balanced(index).build()))
                .analyze();
        assertThat(report.deadlockFree()).isTrue();
        assertThat(report.channels()).isEqualTo(8);
        assertThat(report.usedChannels()).isEqualTo(8);
        // each of the four up-links turns down to the other leaf
        assertThat(report.dependencies()).isEqualTo(4);
    }

    @Test
    void channelsCanBeSplitIntoVirtualChannels() {
        // Dateline on the ring: a route crossing from switch 3 to switch 0 moves to channel 1.
        FabricIndex index = ring().index();
        VirtualChannels dateline = new VirtualChannels() {
            @Override
            public int count() {
                return 2;
            }

            @Override
            public int first(int leaf, int outPort, int destination) {
                return 0;
            }

            @Override
            public int next(int s, int inPort, int inVc, int outPort, int destination) {
                return s == 0 && inPort == 3 ? 1 : inVc;
            }
        };
        RoutedFabric routed = RoutedFabric.of(index, clockwise(index).build());
        DeadlockReport report = new DeadlockAnalyzer(routed, dateline, 2).analyze();
        assertThat(report.deadlockFree()).isTrue();
        assertThat(report.channels()).isEqualTo(16);
        assertThat(report.dependencies()).isEqualTo(4);
    }

    private static void assertIsACycle(List<Channel> cycle) {
        for (int i = 0; i < cycle.size(); i++) {
            Channel a = cycle.get(i);
            Channel b = cycle.get((i + 1) % cycle.size());
            assertThat(b.switchGuid()).as("channel %s leads into %s", a, b).isEqualTo(a.peerGuid());
        }
    }
}
