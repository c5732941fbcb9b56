package org.fabricmanager.routing.dmodc.fill;

import org.fabricmanager.routing.dmodc.preprocess.ByteLanes;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;

/**
 * The sweep of every switch not routed from shared rows (equal-rank neighbours, sets too large, the
 * rows a re-route recomputes): formula (1) by comparing whole cost rows, eight leaves and eight groups
 * per step ({@link ByteLanes}), into one mask per leaf; then every leaf one by one, its destinations
 * given to the {@link RunWriter}, which gathers them into runs. One per thread, its masks reused from
 * switch to switch.
 */
final class DenseSweep {
    private final CostTable costs;
    private final int[] groupNeighbour;
    private final LeafDestinations destinations;
    private final int leaves;
    private final RunWriter out;
    private final long[] mask;
    // Each leaf's candidates: byte b of leaf l, at l * w * 8 + b, holds groups 8b to 8b + 7, so that
    // the leaf's bytes read as its w mask words.
    private final byte[] masks;
    private final int[] neighbourRow = new int[8];

    DenseSweep(FillInputs in, RunWriter out) {
        this.costs = in.costs();
        this.groupNeighbour = in.index().groupNeighbourArray();
        this.destinations = in.destinations();
        this.leaves = in.leaves();
        this.out = out;
        this.mask = out.mask();
        int words = Math.max(1, (in.maxGroups() + 63) >>> 6);
        this.masks = new byte[leaves * words * 8];
    }

    /** Routes switch {@code s} with {@code k} groups into {@code row}. */
    void sweep(byte[] row, int s, int k) {
        computeMasks(s, k);
        walkAll(row, s);
    }

    /** Every leaf one by one, with masks from {@link #computeMasks}. */
    private void walkAll(byte[] row, int s) {
        int ownLeaf = out.ownLeaf();
        int w = out.w();
        byte[] c = costs.array();
        int costRow = s * leaves;
        for (int leaf = 0; leaf < leaves; leaf++) {
            if (leaf == ownLeaf) {
                continue;
            }
            if (c[costRow + leaf] == CostTable.INFINITE) {
                out.noRoute(row, leaf);
                continue;
            }
            for (int i = 0; i < w; i++) {
                mask[i] = ByteLanes.get(masks, (leaf * w + i) * 8);
            }
            if (destinations.contiguous(leaf)) {
                int d0 = destinations.first(leaf);
                out.add(row, d0, d0 + destinations.count(leaf));
            } else {
                out.fillScattered(row, leaf);
            }
        }
    }

    /** Formula (1) by comparing whole rows, eight leaves and eight groups per step. */
    private void computeMasks(int s, int k) {
        int g0 = out.g0();
        int w = out.w();
        byte[] c = costs.array();
        int own = s * leaves;
        int wide = leaves & ~7;
        int stride = w * 8;
        int blocks = w * 8;
        for (int b = 0; b < blocks; b++) {
            int first = b * 8;
            int n = Math.max(0, Math.min(8, k - first));
            for (int i = 0; i < n; i++) {
                neighbourRow[i] = groupNeighbour[g0 + first + i] * leaves;
            }
            for (int l = 0; l < wide; l += 8) {
                long mine = ByteLanes.get(c, own + l);
                long bits = 0;
                for (int i = 0; i < n; i++) {
                    bits |= ByteLanes.lessThan(ByteLanes.get(c, neighbourRow[i] + l), mine) >>> (7 - i);
                }
                int at = l * stride + b;
                masks[at] = (byte) bits;
                masks[at + stride] = (byte) (bits >>> 8);
                masks[at + 2 * stride] = (byte) (bits >>> 16);
                masks[at + 3 * stride] = (byte) (bits >>> 24);
                masks[at + 4 * stride] = (byte) (bits >>> 32);
                masks[at + 5 * stride] = (byte) (bits >>> 40);
                masks[at + 6 * stride] = (byte) (bits >>> 48);
                masks[at + 7 * stride] = (byte) (bits >>> 56);
            }
            for (int l = wide; l < leaves; l++) {
                int bits = 0;
                for (int i = 0; i < n; i++) {
                    if (c[neighbourRow[i] + l] < c[own + l]) {
                        bits |= 1 << i;
                    }
                }
                masks[l * stride + b] = (byte) bits;
            }
        }
    }
}
