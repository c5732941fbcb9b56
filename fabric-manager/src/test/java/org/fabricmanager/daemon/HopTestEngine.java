package org.fabricmanager.daemon;

import java.util.Arrays;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.topology.FabricIndex;

/**
 * A small deterministic shortest-path engine for the daemon's unit tests (the system tests use dmodc):
 * each switch sends a destination out of its lowest port that gets one hop closer to the node's leaf.
 */
public final class HopTestEngine implements RoutingEngine {
    int calls;

    @Override
    public String name() {
        return "hop-test";
    }

    @Override
    public RoutingResult route(FabricIndex index) {
        calls++;
        int n = index.switchCount();
        long[] guids = new long[n];
        for (int s = 0; s < n; s++) {
            guids[s] = index.switchGuid(s);
        }
        ForwardingTables.Builder b = ForwardingTables.builder(guids, index.destinationCount());
        int[] hops = new int[n];
        int[] queue = new int[n];
        for (int leaf : index.leaves()) {
            Arrays.fill(hops, -1);
            int head = 0;
            int tail = 0;
            hops[leaf] = 0;
            queue[tail++] = leaf;
            while (head < tail) {
                int s = queue[head++];
                int[] peers = index.peerSwitches(s);
                for (int p = 1; p < peers.length; p++) {
                    int t = peers[p];
                    if (t != FabricIndex.NONE && hops[t] < 0) {
                        hops[t] = hops[s] + 1;
                        queue[tail++] = t;
                    }
                }
            }
            int ln = index.leafNumber(leaf);
            for (int i = index.leafNodeStart(ln); i < index.leafNodeStart(ln + 1); i++) {
                int node = index.leafNodeArray()[i];
                int d = index.nodeIndex(node);
                b.set(leaf, d, index.nodeLeafPort(node));
                for (int s = 0; s < n; s++) {
                    if (s == leaf || hops[s] < 0) {
                        continue;
                    }
                    int[] peers = index.peerSwitches(s);
                    for (int p = 1; p < peers.length; p++) {
                        if (peers[p] != FabricIndex.NONE && hops[peers[p]] == hops[s] - 1) {
                            b.set(s, d, p);
                            break;
                        }
                    }
                }
            }
        }
        return new RoutingResult(name(), b.build(), Validity.valid(), new PhaseTimings(List.of()));
    }
}
