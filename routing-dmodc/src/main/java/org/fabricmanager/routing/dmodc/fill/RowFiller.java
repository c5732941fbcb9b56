package org.fabricmanager.routing.dmodc.fill;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;
import org.fabricmanager.routing.dmodc.shared.NeighbourBlocks;
import org.fabricmanager.topology.FabricIndex;

/**
 * One thread's router of whole forwarding table rows for {@link RouteFill}, reused from switch to
 * switch: it picks the sweep for a switch (over shared rows when its neighbours' rows are merged in
 * {@link NeighbourBlocks}, over whole cost rows otherwise), then writes no route at the destination
 * gaps and the own leaf's ports. Patches of copied rows go to its {@link RowPatcher}. It owns the
 * thread's scratch: the {@link RunWriter} all sweeps write through and each sweep's own arrays.
 */
final class RowFiller {
    private final FabricIndex index;
    private final LeafDestinations destinations;
    private final NeighbourBlocks blocks;
    private final int leaves;
    private final RunWriter out;
    private final BlockSweep blockSweep;
    private final DenseSweep denseSweep;
    private final RowPatcher patcher;
    private final DmodcShortcuts shortcuts;

    RowFiller(FillInputs in) {
        this.index = in.index();
        this.destinations = in.destinations();
        this.blocks = in.blocks();
        this.leaves = in.leaves();
        this.out = new RunWriter(in);
        RotationSweep rotationSweep = new RotationSweep(in, out);
        this.blockSweep = new BlockSweep(in, out, new OwnRuns(in, out), new SingleBlockSweep(in, out), rotationSweep);
        this.denseSweep = new DenseSweep(in, out);
        this.patcher = new RowPatcher(in, out, rotationSweep);
        this.shortcuts = in.shortcuts();
    }

    /** The row of switch {@code s}, computed afresh. */
    byte[] row(int s) {
        byte[] row = new byte[index.destinationCount()];
        int k = out.begin(s);
        int ownLeaf = out.ownLeaf();
        if (k == 0) {
            for (int leaf = 0; leaf < leaves; leaf++) {
                if (leaf != ownLeaf) {
                    out.noRoute(row, leaf);
                }
            }
        } else {
            routeLeaves(row, s, k);
        }
        // Last, as the base pattern may have been painted over them.
        int[] gaps = destinations.gaps();
        for (int i = 0; i < gaps.length; i += 2) {
            Arrays.fill(row, gaps[i], gaps[i + 1], RunWriter.NO_ROUTE);
        }
        if (ownLeaf != FabricIndex.NONE) {
            out.ownLeafPorts(row);
        }
        return row;
    }

    /** {@link RowPatcher#patch}: chosen leaves and destinations of a copied row. */
    byte[] patch(int s, byte[] row, long[] leaves, int[] destinations) {
        return patcher.patch(s, row, leaves, destinations);
    }

    /** {@link RowPatcher#relative}: a relative's row at the leaves where it differs. */
    byte[] relative(int s, byte[] row, long[] leaves) {
        return patcher.relative(s, row, leaves);
    }

    private void routeLeaves(byte[] row, int s, int k) {
        out.beginGroups(s, k);
        out.beginRow();
        if (shortcuts.counts() != null && out.pi() == 32 && shortcuts.on(DmodcShortcuts.Shortcut.STRAIGHT_32)) {
            shortcuts.hit(DmodcShortcuts.Shortcut.STRAIGHT_32);
        }
        if (blocks != null && blocks.eligible(s)) {
            shortcuts.hit(DmodcShortcuts.Shortcut.SHARED_ROWS);
            blockSweep.sweep(row, s);
        } else {
            denseSweep.sweep(row, s, k);
        }
        out.finish(row);
    }
}
