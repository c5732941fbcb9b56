package org.fabricmanager.routing.baseline;

import java.util.Arrays;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.topology.FabricIndex;

/**
 * Dense per-leaf hop tables (OpenSM memo, sections 4 d and 4.2): {@code hops(s, k)} is the
 * minimum number of switch-to-switch hops from switch {@code s} to leaf number {@code k}, one byte
 * per entry, {@link #UNREACHABLE} when there is no path. Only leaves get a column, since a node's
 * distance is its leaf's. Built by one {@link LeafSearch} per leaf, spread over threads.
 */
final class HopTables {
    static final int UNREACHABLE = LeafSearch.UNREACHED;

    private final byte[][] hops;

    private HopTables(byte[][] hops) {
        this.hops = hops;
    }

    static HopTables compute(FabricIndex index, RoutingPool pool) {
        byte[][] hops = new byte[index.switchCount()][index.leafCount()];
        for (byte[] row : hops) {
            Arrays.fill(row, (byte) UNREACHABLE);
        }
        LeafSearch.forEachLeaf(pool, index,
                (k, queue) -> LeafSearch.overAllLinks(MinHopEngine.NAME, index, k, hops, queue));
        return new HopTables(hops);
    }

    int hops(int s, int k) {
        return hops[s][k] & 0xff;
    }

    byte[] row(int s) {
        return hops[s];
    }
}
