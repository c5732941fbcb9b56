package org.fabricmanager.routing.analysis;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.topology.FabricIndex;

/**
 * A worker of a per-destination analysis, run on a {@link org.fabricmanager.routing.RoutingPool}
 * over destination blocks: loads the table entries of one {@link DestinationBlock} at a time and
 * hands on each of its destinations that is an attached node. Each worker keeps its own scratch
 * arrays and partial result, which the analysis merges afterwards.
 */
abstract class DestinationWorker implements IntConsumer {
    /** The entries of the block being worked on. */
    final DestinationBlock block;
    private final RoutedFabric fabric;

    DestinationWorker(RoutedFabric routed) {
        this.fabric = routed;
        this.block = new DestinationBlock(routed.tables());
    }

    /**
     * Runs workers from {@code factory} over every destination block of {@code routed} on
     * {@code threads} threads named after {@code analysis}; returns the workers, in worker order,
     * for the caller to merge. {@code abandon} is checked before each block
     * ({@link org.fabricmanager.routing.AbandonedException} once it is true).
     */
    static <W extends DestinationWorker> List<W> runAll(RoutedFabric routed, int threads, String analysis,
                                                        BooleanSupplier abandon, Supplier<W> factory) {
        int blocks = DestinationBlock.blockCount(routed.index().destinationCount());
        try (RoutingPool pool = new RoutingPool(threads, analysis)) {
            return pool.forEach(blocks, factory, abandon);
        }
    }

    @Override
    public final void accept(int b) {
        block.load(b);
        for (int j = 0; j < block.width(); j++) {
            int d = block.first() + j;
            int leaf = fabric.leafOf(d);
            if (leaf != FabricIndex.NONE) {
                destination(d, j, leaf);
            }
        }
    }

    /** Works on destination {@code d}, entry {@code j} of the block, attached to switch {@code leaf}. */
    abstract void destination(int d, int j, int leaf);
}
