package org.fabricmanager.routing.vtftr;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.topology.FabricIndex;

/**
 * Validity read off the tables themselves: a leaf pair is routed when, for every node of the
 * destination leaf, the entries lead from the source leaf to that node. Per destination, each
 * switch's outcome is settled once and shared by every route through it (O(switches) per
 * destination). Destinations are taken in blocks of {@value #BLOCK} whose entries are first copied
 * switch by switch into one small array: a walk reads one entry of many switches, which straight
 * from the tables would cost a cache miss each.
 */
public final class TableValidity {
    private static final int OK = 1;
    private static final int FAILED = 2;
    private static final int ON_PATH = 3;
    private static final int BLOCK = 64;

    private TableValidity() {
    }

    /** Which leaf pairs {@code tables} route on {@code index} (any engine's tables, e.g. read from a file). */
    public static Validity of(FabricIndex index, ForwardingTables tables, RoutingPool pool) {
        int leaves = index.leafCount();
        boolean[] broken = new boolean[Math.multiplyExact(leaves, leaves)];
        int blocks = (index.destinationCount() + BLOCK - 1) / BLOCK;
        pool.forEach(blocks, () -> new Walker(index, tables, broken));
        long unreachable = 0;
        List<Validity.LeafPair> examples = new ArrayList<>();
        int[] ids = index.leaves();
        for (int a = 0; a < leaves; a++) {
            for (int b = 0; b < leaves; b++) {
                if (broken[a * leaves + b]) {
                    unreachable++;
                    if (examples.size() < Validity.MAX_EXAMPLES) {
                        examples.add(new Validity.LeafPair(index.switchGuid(ids[a]), index.switchGuid(ids[b])));
                    }
                }
            }
        }
        return new Validity(unreachable, examples);
    }

    /** Settles, for one destination at a time, whether each leaf's route reaches it. */
    private static final class Walker implements IntConsumer {
        private final FabricIndex index;
        private final ForwardingTables tables;
        private final boolean[] broken;
        private final int[] mark;
        private final byte[] status;
        private final int[] path;
        private final byte[] block;
        private int column;

        Walker(FabricIndex index, ForwardingTables tables, boolean[] broken) {
            this.index = index;
            this.tables = tables;
            this.broken = broken;
            this.mark = new int[index.switchCount()];
            this.status = new byte[index.switchCount()];
            this.path = new int[index.switchCount()];
            this.block = new byte[index.switchCount() * BLOCK];
        }

        @Override
        public void accept(int b) {
            int first = b * BLOCK;
            int width = Math.min(BLOCK, index.destinationCount() - first);
            for (int s = 0; s < index.switchCount(); s++) {
                tables.copyEntries(s, first, block, s * BLOCK, width);
            }
            for (int j = 0; j < width; j++) {
                column = j;
                destination(first + j);
            }
        }

        private void destination(int d) {
            int pos = index.nodeByDestination(d);
            int target = pos == FabricIndex.NONE ? FabricIndex.NONE : index.nodeLeaf(pos);
            if (target == FabricIndex.NONE) {
                return;
            }
            int stamp = d + 1;
            int leaves = index.leafCount();
            int to = index.leafNumber(target);
            for (int a : index.leaves()) {
                if (a != target && walk(a, d, pos, stamp) == FAILED) {
                    // distinct destinations may mark the same pair: only ever set to true
                    broken[index.leafNumber(a) * leaves + to] = true;
                }
            }
        }

        private int walk(int from, int d, int pos, int stamp) {
            int len = 0;
            int s = from;
            int result;
            while (true) {
                if (mark[s] == stamp) {
                    result = status[s] == ON_PATH ? FAILED : status[s];
                    break;
                }
                mark[s] = stamp;
                status[s] = ON_PATH;
                path[len++] = s;
                int port = block[s * BLOCK + column] & 0xff;
                if (port == ForwardingTables.NO_ROUTE || port > index.switchPorts(s)) {
                    result = FAILED;
                    break;
                }
                int node = index.peerNodes(s)[port];
                if (node != FabricIndex.NONE) {
                    result = node == index.basePosition(pos) ? OK : FAILED;
                    break;
                }
                int next = index.peerSwitches(s)[port];
                if (next == FabricIndex.NONE) {
                    result = FAILED;
                    break;
                }
                s = next;
            }
            for (int i = 0; i < len; i++) {
                status[path[i]] = (byte) result;
            }
            return result;
        }
    }
}
