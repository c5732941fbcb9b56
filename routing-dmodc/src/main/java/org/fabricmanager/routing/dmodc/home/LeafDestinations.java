package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;

/**
 * Where each leaf's destinations lie among the destination indices, as the pass walks them: a leaf's run when they
 * are consecutive (the usual case: indices given leaf by leaf), else its destinations sorted.
 *
 * @param leafOf per destination, its leaf's number ({@code -1}: unused index)
 * @param first per leaf number, its first destination when its destinations are consecutive, else {@code -1}
 * @param sorted each leaf's destinations in ascending order at the leaf's node positions; empty when every leaf's
 *     are consecutive
 * @param tiled true when every destination index is a leaf's and every leaf's are consecutive
 */
record LeafDestinations(int[] leafOf, int[] first, int[] sorted, boolean tiled) {
    static LeafDestinations of(FabricIndex index) {
        int leaves = index.leafCount();
        int destinations = index.destinationCount();
        int[] leafOf = new int[destinations];
        Arrays.fill(leafOf, -1);
        int[] first = new int[leaves];
        int[] nodes = index.leafNodeArray();
        int covered = 0;
        boolean consecutive = true;
        boolean all = true;
        for (int l = 0; l < leaves; l++) {
            int from = index.leafNodeStart(l);
            int to = index.leafNodeStart(l + 1);
            int d0 = to > from ? index.nodeIndex(nodes[from]) : -1;
            for (int i = from; i < to; i++) {
                int d = index.nodeIndex(nodes[i]);
                leafOf[d] = l;
                consecutive &= d == d0 + i - from;
            }
            first[l] = to > from && index.nodeIndex(nodes[to - 1]) == d0 + to - from - 1 ? d0 : -1;
            all &= first[l] >= 0;
            covered += to - from;
        }
        int[] sorted = new int[all ? 0 : index.leafNodeStart(leaves)];
        for (int l = 0; l < leaves && !all; l++) {
            for (int i = index.leafNodeStart(l); i < index.leafNodeStart(l + 1); i++) {
                sorted[i] = index.nodeIndex(nodes[i]);
            }
            Arrays.sort(sorted, index.leafNodeStart(l), index.leafNodeStart(l + 1));
        }
        return new LeafDestinations(leafOf, first, sorted, consecutive && covered == destinations);
    }

    /** True when every leaf's destinations are consecutive. */
    boolean consecutive() {
        return sorted.length == 0;
    }
}
