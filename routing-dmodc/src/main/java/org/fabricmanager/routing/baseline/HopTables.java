package org.fabricmanager.routing.baseline;

import java.util.function.IntConsumer;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;

/**
 * Dense per-leaf hop tables (OpenSM memo, sections 4 d and 4.2): {@code hops(s, k)} is the
 * minimum number of switch-to-switch hops from switch {@code s} to leaf number {@code k}, one byte
 * per entry, {@link #UNREACHABLE} when there is no path. Only leaves get a column, since a node's
 * distance is its leaf's. Built by one breadth-first search per leaf, spread over threads.
 */
final class HopTables {
    static final int UNREACHABLE = 255;

    private final byte[][] hops;

    private HopTables(byte[][] hops) {
        this.hops = hops;
    }

    static HopTables compute(FabricIndex index, WorkerPool pool) {
        int n = index.switchCount();
        int leafCount = index.leafCount();
        byte[][] hops = new byte[n][leafCount];
        for (byte[] row : hops) {
            java.util.Arrays.fill(row, (byte) UNREACHABLE);
        }
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        pool.forEach(leafCount, () -> new IntConsumer() {
            private final int[] queue = new int[n];

            @Override
            public void accept(int k) {
                int head = 0;
                int tail = 0;
                int leaf = index.leaves()[k];
                hops[leaf][k] = 0;
                queue[tail++] = leaf;
                while (head < tail) {
                    int s = queue[head++];
                    int next = (hops[s][k] & 0xff) + 1;
                    for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                        int t = neighbours[g];
                        if ((hops[t][k] & 0xff) == UNREACHABLE && t != leaf) {
                            if (next >= UNREACHABLE) {
                                throw new RoutingException("minhop: switch " + Guids.format(index.switchGuid(t))
                                        + " is more than " + (UNREACHABLE - 1) + " hops from leaf "
                                        + Guids.format(index.switchGuid(leaf)));
                            }
                            hops[t][k] = (byte) next;
                            queue[tail++] = t;
                        }
                    }
                }
            }
        });
        return new HopTables(hops);
    }

    int hops(int s, int k) {
        return hops[s][k] & 0xff;
    }

    byte[] row(int s) {
        return hops[s];
    }
}
