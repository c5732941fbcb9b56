package org.fabricmanager.routing.dmodc.fill;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.incremental.RouteChanges;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;
import org.fabricmanager.routing.dmodc.reuse.RowRelatives;
import org.fabricmanager.routing.dmodc.shared.NeighbourBlocks;
import org.fabricmanager.topology.FabricIndex;

/**
 * Recomputes chosen entries of a copied row, each as a sweep would write it: the destinations of
 * chosen leaves and single destinations of a re-routed switch ({@link RouteChanges}), and the
 * differing chunks of a relative ({@link RowRelatives}). A leaf's candidates come from formula (1)
 * over the cost table (the costs of the switch's neighbours to that leaf), or, for a relative above
 * one shared set, from the set ({@link RotationSweep#relative}). One per thread, sharing its
 * {@link RunWriter}.
 */
final class RowPatcher {
    /** No single destinations to patch. */
    static final int[] NO_DESTINATIONS = new int[0];

    private final FabricIndex index;
    private final CostTable costs;
    private final int[] groupNeighbour;
    private final LeafDestinations destinations;
    private final NeighbourBlocks blocks;
    private final int leaves;
    private final RunWriter out;
    private final long[] mask;
    private final RotationSweep rotationSweep;
    private final boolean rotationOn;

    RowPatcher(FillInputs in, RunWriter out, RotationSweep rotationSweep) {
        this.index = in.index();
        this.costs = in.costs();
        this.groupNeighbour = index.groupNeighbourArray();
        this.destinations = in.destinations();
        this.blocks = in.blocks();
        this.leaves = in.leaves();
        this.out = out;
        this.mask = out.mask();
        this.rotationSweep = rotationSweep;
        this.rotationOn = in.shortcuts().on(DmodcShortcuts.Shortcut.ROTATION);
    }

    /**
     * Recomputes, in a copy of the previous row of {@code s}, the destinations of the leaves in
     * {@code leaves} (bits, may be null) and the destinations {@code destinations}, each as
     * {@link RowFiller#row} would write it.
     */
    byte[] patch(int s, byte[] row, long[] leaves, int[] destinations) {
        int k = out.begin(s);
        out.beginGroups(s, k);
        if (leaves != null) {
            for (int word = 0; word < leaves.length; word++) {
                long bits = leaves[word];
                while (bits != 0) {
                    patchLeaf(row, s, k, (word << 6) + Long.numberOfTrailingZeros(bits));
                    bits &= bits - 1;
                }
            }
        }
        for (int d : destinations) {
            patchDestination(row, s, k, d);
        }
        return row;
    }

    /**
     * Recomputes, in a copy of a relative's row ({@link RowRelatives}), the destinations of the leaves in
     * {@code leaves}. A switch that {@link RotationSweep} would route (a leaf above one shared set) takes
     * each leaf's candidates from the set and writes them with {@link RotationRuns}, as that sweep does;
     * any other is patched leaf by leaf from the cost table ({@link #patch}), which for a leaf reads its 32
     * neighbours' costs per destination leaf: about twice as slow as the first.
     */
    byte[] relative(int s, byte[] row, long[] leaves) {
        int k = out.begin(s);
        out.beginGroups(s, k);
        if (!rotationOn || blocks == null || !blocks.eligible(s) || blocks.firstBlock(s + 1) - blocks.firstBlock(s) != 1
                || out.pi() != 1 || out.w() != 1 || !out.singlePorts()) {
            return patch(s, row, leaves, NO_DESTINATIONS);
        }
        return rotationSweep.relative(s, row, leaves);
    }

    private void patchLeaf(byte[] row, int s, int k, int leaf) {
        if (leaf == out.ownLeaf()) {
            out.ownLeafPorts(row);
            return;
        }
        int own = costs.cost(s, leaf);
        if (k == 0 || own == CostTable.INFINITE) {
            out.noRoute(row, leaf);
            return;
        }
        leafMask(k, leaf, own);
        if (destinations.contiguous(leaf)) {
            int d0 = destinations.first(leaf);
            out.fill(row, d0, d0 + destinations.count(leaf));
        } else {
            out.fillScattered(row, leaf);
        }
    }

    private void patchDestination(byte[] row, int s, int k, int d) {
        int pos = index.nodeByDestination(d);
        int leafSwitch = pos == FabricIndex.NONE ? FabricIndex.NONE : index.nodeLeaf(pos);
        if (leafSwitch == FabricIndex.NONE) {
            row[d] = RunWriter.NO_ROUTE;
        } else if (leafSwitch == s) {
            row[d] = (byte) index.nodeLeafPort(pos);
        } else {
            int leaf = index.leafNumber(leafSwitch);
            int own = costs.cost(s, leaf);
            if (k == 0 || own == CostTable.INFINITE) {
                row[d] = RunWriter.NO_ROUTE;
            } else {
                leafMask(k, leaf, own);
                row[d] = out.port(d);
            }
        }
    }

    /** Formula (1) for one leaf into the writer's mask: the groups whose neighbour is closer than {@code own}. */
    private void leafMask(int k, int leaf, int own) {
        int g0 = out.g0();
        byte[] c = costs.array();
        Arrays.fill(mask, 0, out.w(), 0L);
        for (int i = 0; i < k; i++) {
            if (c[groupNeighbour[g0 + i] * leaves + leaf] < own) {
                mask[i >>> 6] |= 1L << i;
            }
        }
    }
}
