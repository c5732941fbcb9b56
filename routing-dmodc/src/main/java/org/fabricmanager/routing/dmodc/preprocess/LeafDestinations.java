package org.fabricmanager.routing.dmodc.preprocess;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;

/**
 * The destination indices of each leaf's nodes, ascending, in {@link FabricIndex#leafNodeArray()}
 * order, plus whether they form one contiguous range (the common case: generated and discovered
 * fabrics number a leaf's nodes consecutively), which lets the route loop fill runs instead of
 * single entries.
 */
public final class LeafDestinations {
    private final int[] start;
    private final int[] destination;
    private final int[] port;
    private final boolean[] contiguous;
    private final int[] gaps;
    private final int[] first;
    private final int[] chainEnd;
    private final int stride;

    private LeafDestinations(int[] start, int[] destination, int[] port, boolean[] contiguous, int[] gaps) {
        this.start = start;
        this.destination = destination;
        this.port = port;
        this.contiguous = contiguous;
        this.gaps = gaps;
        int leaves = contiguous.length;
        this.first = new int[leaves];
        this.chainEnd = new int[leaves];
        for (int leaf = leaves - 1; leaf >= 0; leaf--) {
            first[leaf] = start[leaf] < start[leaf + 1] ? destination[start[leaf]] : -1;
            boolean joins = leaf + 1 < leaves && contiguous[leaf] && contiguous[leaf + 1]
                    && destination[start[leaf + 1]] == destination[start[leaf + 1] - 1] + 1;
            chainEnd[leaf] = joins ? chainEnd[leaf + 1] : leaf;
        }
        int k = leaves > 0 ? start[1] - start[0] : 0;
        boolean regular = k > 0;
        for (int leaf = 0; leaf < leaves && regular; leaf++) {
            regular = contiguous[leaf] && start[leaf + 1] - start[leaf] == k && first[leaf] == first[0] + k * leaf;
        }
        this.stride = regular ? k : 0;
    }

    public static LeafDestinations of(FabricIndex index) {
        int leaves = index.leafCount();
        int[] nodes = index.leafNodeArray();
        int[] start = new int[leaves + 1];
        int[] destination = new int[nodes.length];
        int[] port = new int[nodes.length];
        boolean[] contiguous = new boolean[leaves];
        for (int leaf = 0; leaf < leaves; leaf++) {
            start[leaf] = index.leafNodeStart(leaf);
        }
        start[leaves] = nodes.length;
        for (int i = 0; i < nodes.length; i++) {
            destination[i] = index.nodeIndex(nodes[i]);
            port[i] = index.nodeLeafPort(nodes[i]);
        }
        for (int leaf = 0; leaf < leaves; leaf++) {
            int from = start[leaf];
            int to = start[leaf + 1];
            contiguous[leaf] = to > from && destination[to - 1] - destination[from] == to - from - 1;
        }
        return new LeafDestinations(start, destination, port, contiguous, gaps(index));
    }

    /** Ranges {@code [from, to)} of destination indices that no linked node has, as pairs. */
    private static int[] gaps(FabricIndex index) {
        int count = index.destinationCount();
        int[] out = new int[8];
        int n = 0;
        int d = 0;
        while (d < count) {
            int pos = index.nodeByDestination(d);
            if (pos != FabricIndex.NONE && index.nodeLeaf(pos) != FabricIndex.NONE) {
                d++;
                continue;
            }
            int from = d;
            while (d < count && (index.nodeByDestination(d) == FabricIndex.NONE
                    || index.nodeLeaf(index.nodeByDestination(d)) == FabricIndex.NONE)) {
                d++;
            }
            if (n + 2 > out.length) {
                out = Arrays.copyOf(out, out.length * 2);
            }
            out[n++] = from;
            out[n++] = d;
        }
        return Arrays.copyOf(out, n);
    }

    /** The smallest destination index of the leaf's nodes. */
    public int first(int leaf) {
        return first[leaf];
    }

    /** Number of nodes on the leaf. */
    public int count(int leaf) {
        return start[leaf + 1] - start[leaf];
    }

    /**
     * The last leaf of the longest run of leaves from {@code leaf} on whose destinations are, all
     * together, one contiguous range ({@code leaf} itself when it does not chain).
     */
    public int chainEnd(int leaf) {
        return chainEnd[leaf];
    }

    /**
     * {@code k} when every leaf {@code l} has exactly the destinations {@code first(0) + k l .. first(0) + k (l + 1) - 1}
     * (leaves of {@code k} nodes each, numbered leaf after leaf, as generated and complete fabrics are), else 0:
     * the destinations of leaves {@code [a, b)} are then {@code [first(0) + k a, first(0) + k b)}, without a lookup.
     */
    public int stride() {
        return stride;
    }

    /** Destination ranges without a linked node: {@code [gaps[2i], gaps[2i+1])}. */
    public int[] gaps() {
        return gaps;
    }

    /** First position of leaf {@code leaf}'s nodes; they end at {@code start(leaf + 1)}. */
    public int start(int leaf) {
        return start[leaf];
    }

    /** Destination index at position {@code i}. */
    public int destination(int i) {
        return destination[i];
    }

    /** The leaf port of the node at position {@code i}. */
    public int port(int i) {
        return port[i];
    }

    /** True when the leaf's destinations are {@code destination(start) .. destination(start) + count - 1}. */
    public boolean contiguous(int leaf) {
        return contiguous[leaf];
    }
}
