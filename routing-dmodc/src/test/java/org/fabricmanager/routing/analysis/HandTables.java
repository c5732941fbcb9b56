package org.fabricmanager.routing.analysis;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;

/**
 * The hand-made fabric of the analysis tests, {@code PGFT(2;2,2;1,2;1,1)}: leaves L0 (id 0) and L1
 * (id 1) with nodes 0,1 and 2,3 on ports 1,2 and up ports 3 (to spine S0, id 2) and 4 (to S1, id 3);
 * spines reach L0 on port 1 and L1 on port 2. Tables are written entry by entry.
 */
final class HandTables {
    static final int L0 = 0;
    static final int L1 = 1;
    static final int S0 = 2;
    static final int S1 = 3;

    private HandTables() {
    }

    static Fabric fabric() {
        return TestFabrics.canonical("PGFT(2;2,2;1,2;1,1)");
    }

    /** Minimal, balanced routes: node 2 via S0, node 3 via S1, nodes 0 via S0 and 1 via S1. */
    static ForwardingTables.Builder balanced(FabricIndex index) {
        long[] guids = new long[index.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = index.switchGuid(s);
        }
        ForwardingTables.Builder b = ForwardingTables.builder(guids, index.destinationCount());
        int[][] rows = {
                {1, 2, 3, 4}, // L0
                {3, 4, 1, 2}, // L1
                {1, 1, 2, 2}, // S0
                {1, 1, 2, 2}, // S1
        };
        for (int s = 0; s < rows.length; s++) {
            for (int d = 0; d < rows[s].length; d++) {
                b.set(s, d, rows[s][d]);
            }
        }
        return b;
    }
}
