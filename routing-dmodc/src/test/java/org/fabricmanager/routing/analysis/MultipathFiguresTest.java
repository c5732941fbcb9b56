package org.fabricmanager.routing.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.Test;

/**
 * The multipath figures under LMC 1 on the hand fabric of {@link HandTables}: node n's LIDs are destinations 2n (path
 * bits 0) and 2n+1. Every pair of a pattern is two flows, one to each LID; the figures below are counted by hand.
 */
class MultipathFiguresTest {
    private final FabricIndex index = HandTables.fabric().withLmc(1).index();

    /** Each remote node's LID 0 through S0 (up-port 3), its LID 1 through S1 (up-port 4). */
    private ForwardingTables.Builder spread() {
        long[] guids = new long[index.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = index.switchGuid(s);
        }
        ForwardingTables.Builder b = ForwardingTables.builder(guids, index.destinationCount());
        int[][] rows = {
                {1, 1, 2, 2, 3, 4, 3, 4}, // L0: nodes 0,1 on ports 1,2; nodes 2,3 up
                {3, 4, 3, 4, 1, 1, 2, 2}, // L1
                {1, 1, 1, 1, 2, 2, 2, 2}, // S0
                {1, 1, 1, 1, 2, 2, 2, 2}, // S1
        };
        for (int s = 0; s < rows.length; s++) {
            for (int d = 0; d < rows[s].length; d++) {
                b.set(s, d, rows[s][d]);
            }
        }
        return b;
    }

    private static PatternCongestion congestion(RoutedFabric routed, String pattern) {
        return new CongestionAnalyzer(routed, 2).analyze(TrafficPattern.parse(pattern));
    }

    @Test
    void lidsOnDistinctUplinksShareNoLinkAndCountOneFlowPerLid() {
        RoutedFabric routed = RoutedFabric.of(index, spread().build());
        assertThat(routed.attachedCount()).as("the patterns range over nodes, not LIDs").isEqualTo(4);
        assertThat(routed.lids()).isEqualTo(2);
        LidSharing sharing = new LidSharingAnalyzer(routed, 2).analyze();
        // leaf/port pairs: L0 with nodes 2 and 3, L1 with nodes 0 and 1
        assertThat(sharing).isEqualTo(new LidSharing(2, 4, 0, 0, 1, 0));
        // all-to-all: L0's up-port 3 carries LID 0 of nodes 2 and 3 from nodes 0 and 1: 4 flows
        PatternCongestion all = congestion(routed, "all2all");
        assertThat(all.max()).isEqualTo(4);
        assertThat(all.unroutedPairs()).as("the extra LIDs are delivered").isZero();
        // shift 2: 0->2 and 1->3 each put their LID 0 on up-port 3 and LID 1 on up-port 4; shifts 1 and 3 one each
        PatternCongestion shift = congestion(routed, "shift");
        assertThat(shift.max()).isEqualTo(2);
        assertThat(shift.mean()).isEqualTo(4.0 / 3.0);
        assertThat(shift.unroutedPairs()).isZero();
        assertThat(TracedValidity.of(routed).unreachablePairs()).isZero();
    }

    @Test
    void twoLidsOfAPortOnOneUplinkAreSharedAtTheLeafAndLoadIt() {
        ForwardingTables.Builder b = spread();
        b.set(HandTables.L0, 7, 3); // L0 sends node 3's LID 1 through S0 as well (S0 takes it on down port 2)
        RoutedFabric routed = RoutedFabric.of(index, b.build());
        LidSharing sharing = new LidSharingAnalyzer(routed, 1).analyze();
        assertThat(sharing).isEqualTo(new LidSharing(2, 4, 1, 1, 2, 0));
        // up-port 3 of L0: LID 0 of node 2, both LIDs of node 3, from two sources
        assertThat(congestion(routed, "all2all").max()).isEqualTo(6);
        // shift 2: 0->2 LID 0, 1->3 LIDs 0 and 1 on up-port 3
        assertThat(congestion(routed, "shift").max()).isEqualTo(3);
    }

    @Test
    void anUndeliveredExtraLidIsUnroutedAndItsPairLeftOut() {
        ForwardingTables.Builder b = spread();
        b.set(HandTables.S1, 5, 1); // S1 sends node 2's LID 1 back to L0: L0 -> S1 -> L0 -> S1 ... a loop
        RoutedFabric routed = RoutedFabric.of(index, b.build());
        LidSharing sharing = new LidSharingAnalyzer(routed, 2).analyze();
        assertThat(sharing.unrouted()).isEqualTo(1);
        assertThat(sharing.pairs()).isEqualTo(3);
        assertThat(congestion(routed, "all2all").unroutedPairs()).as("nodes 0 and 1 to node 2's LID 1").isEqualTo(2);
        assertThat(TracedValidity.of(routed).unreachablePairs()).as("L0 to L1, through its first node's LID 1")
                .isEqualTo(1);
    }

    @Test
    void dmodcHomeKeepsEveryPortsLidsApartOnAThreeLevelFatTree() throws Exception {
        FabricIndex pgft = TestFabrics.canonical("PGFT(3;4,4,4;1,4,4;1,1,1)").withLmc(2).index();
        try (RoutingEngine engine = RoutingEngines.create("dmodc-home", 2)) {
            RoutedFabric routed = RoutedFabric.of(pgft, engine.route(pgft).tables());
            // 16 leaves, each with the 60 ports of the other 15
            assertThat(new LidSharingAnalyzer(routed, 2).analyze()).isEqualTo(new LidSharing(4, 960, 0, 0, 1, 0));
        }
    }
}
