package org.fabricmanager.topology;

import java.util.Arrays;

/**
 * The leaves of a {@link FabricIndex}: switches with at least one node link, in id order ({@code leaves}), the leaf
 * number of each switch ({@link FabricIndex#NONE} for a non-leaf), and per leaf, from {@code leafNodeStart}, its
 * node positions in {@code leafNodes} by ascending destination index.
 */
record LeafLayout(int[] leaves, int[] leafNumber, int[] leafNodeStart, int[] leafNodes) {
    /** The layout of {@code n} switches given each node's leaf switch id ({@link FabricIndex#NONE}: unattached). */
    static LeafLayout of(int n, int[] nodeLeaf) {
        int[] leafNumber = FabricIndex.filled(n);
        int leafCount = 0;
        int[] nodesPerSwitch = new int[n];
        for (int leaf : nodeLeaf) {
            if (leaf != FabricIndex.NONE) {
                nodesPerSwitch[leaf]++;
            }
        }
        for (int s = 0; s < n; s++) {
            if (nodesPerSwitch[s] > 0) {
                leafNumber[s] = leafCount++;
            }
        }
        int[] leaves = new int[leafCount];
        int[] leafNodeStart = new int[leafCount + 1];
        for (int s = 0, k = 0; s < n; s++) {
            if (leafNumber[s] != FabricIndex.NONE) {
                leaves[k] = s;
                leafNodeStart[k + 1] = leafNodeStart[k] + nodesPerSwitch[s];
                k++;
            }
        }
        int[] leafNodes = new int[leafNodeStart[leafCount]];
        int[] fill = Arrays.copyOf(leafNodeStart, leafCount);
        for (int i = 0; i < nodeLeaf.length; i++) {
            if (nodeLeaf[i] != FabricIndex.NONE) {
                leafNodes[fill[leafNumber[nodeLeaf[i]]]++] = i;
            }
        }
        return new LeafLayout(leaves, leafNumber, leafNodeStart, leafNodes);
    }
}
