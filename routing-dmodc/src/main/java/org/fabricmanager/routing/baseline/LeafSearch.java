package org.fabricmanager.routing.baseline;

import java.util.function.IntConsumer;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;

/**
 * The per-leaf breadth-first search both baseline engines build their tables from: hop counts from
 * every switch to leaf number {@code k}, written to column {@code k} of a switch-by-leaf byte table
 * in which 255 means unreached, so a count must stay below 255. {@code minhop} searches over every
 * link; {@code updn} only over up moves, which, searched backwards from the leaf, finds the shortest
 * down-only paths to it. Leaves are independent and spread over the engine's pool.
 */
final class LeafSearch {
    /** A byte table entry no path has reached (yet). */
    static final int UNREACHED = 255;

    /** The work done for one leaf, with a queue of one int per switch owned by the worker. */
    interface LeafTask {
        void run(int k, int[] queue);
    }

    private LeafSearch() {
    }

    /** Runs {@code task} once for every leaf number, in parallel. */
    static void forEachLeaf(RoutingPool pool, FabricIndex index, LeafTask task) {
        int n = index.switchCount();
        pool.forEach(index.leafCount(), () -> new IntConsumer() {
            private final int[] queue = new int[n];

            @Override
            public void accept(int k) {
                task.run(k, queue);
            }
        });
    }

    /**
     * Hop counts to leaf number {@code k} over every link, into column {@code k} of {@code table},
     * which must be {@link #UNREACHED} in that column.
     */
    static void overAllLinks(String engine, FabricIndex index, int k, byte[][] table, int[] queue) {
        search(engine, index, k, table, null, queue);
    }

    /**
     * Shortest down-only path lengths to leaf number {@code k}, into column {@code k} of
     * {@code table}, which must be {@link #UNREACHED} in that column: from the leaf, over moves
     * towards a higher {@code position}.
     */
    static void overUpMoves(String engine, FabricIndex index, int k, byte[][] table, int[] position, int[] queue) {
        search(engine, index, k, table, position, queue);
    }

    /** {@code position == null}: every link. */
    private static void search(String engine, FabricIndex index, int k, byte[][] table, int[] position,
                               int[] queue) {
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        int leaf = index.leaves()[k];
        int head = 0;
        int tail = 0;
        table[leaf][k] = 0;
        queue[tail++] = leaf;
        while (head < tail) {
            int s = queue[head++];
            int next = (table[s][k] & 0xff) + 1;
            for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                int t = neighbours[g];
                if ((position == null || position[t] > position[s]) && (table[t][k] & 0xff) == UNREACHED) {
                    table[t][k] = (byte) checked(engine, index, t, leaf, next);
                    queue[tail++] = t;
                }
            }
        }
    }

    /** {@code hops}, the length of a path from switch {@code s} to {@code leaf}, if a table entry can hold it. */
    static int checked(String engine, FabricIndex index, int s, int leaf, int hops) {
        if (hops >= UNREACHED) {
            throw new RoutingException(engine + ": switch " + Guids.format(index.switchGuid(s)) + " is more than "
                    + (UNREACHED - 1) + " hops from leaf " + Guids.format(index.switchGuid(leaf)));
        }
        return hops;
    }
}
