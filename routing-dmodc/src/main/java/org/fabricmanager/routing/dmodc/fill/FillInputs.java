package org.fabricmanager.routing.dmodc.fill;

import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;
import org.fabricmanager.routing.dmodc.shared.NeighbourBlocks;
import org.fabricmanager.topology.FabricIndex;

/**
 * The read-only inputs of one {@link RouteFill} run, shared by all its threads: the fabric snapshot
 * (with its group arrays), the cost table with the dividers and row profiles, the destinations of
 * each leaf, the merged neighbour rows ({@code blocks}: null when the run routes without them, as a
 * re-route does) and the most groups any switch has (the size of the per-thread masks). The sweeps
 * copy the arrays they read into their own fields when a thread starts, so that their loops reach
 * them with no indirection. The {@code shortcuts} say which shortcuts the sweeps take ({@link DmodcShortcuts#ALL}
 * unless a test or benchmark says otherwise).
 */
record FillInputs(FabricIndex index, CostTable costs, int[] divider, RowProfiles profiles,
                  LeafDestinations destinations, NeighbourBlocks blocks, int maxGroups, DmodcShortcuts shortcuts) {

    /** The inputs without merged neighbour rows; {@code maxGroups} is counted here. */
    static FillInputs of(FabricIndex index, CostTable costs, int[] divider, RowProfiles profiles,
                         LeafDestinations destinations) {
        int most = 0;
        for (int s = 0; s < index.switchCount(); s++) {
            most = Math.max(most, index.groupCount(s));
        }
        return new FillInputs(index, costs, divider, profiles, destinations, null, most, DmodcShortcuts.ALL);
    }

    /** The same inputs with the merged neighbour rows {@code blocks} (null for none). */
    FillInputs withBlocks(NeighbourBlocks blocks) {
        return new FillInputs(index, costs, divider, profiles, destinations, blocks, maxGroups, shortcuts);
    }

    /** The same inputs taking only the {@code shortcuts} given. */
    FillInputs withShortcuts(DmodcShortcuts shortcuts) {
        return new FillInputs(index, costs, divider, profiles, destinations, blocks, maxGroups, shortcuts);
    }

    /** The number of leaves (columns of the cost table). */
    int leaves() {
        return costs.leafCount();
    }
}
