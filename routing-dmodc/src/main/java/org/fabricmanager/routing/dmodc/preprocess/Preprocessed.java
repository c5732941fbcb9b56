package org.fabricmanager.routing.dmodc.preprocess;

import org.fabricmanager.topology.FabricIndex;

/**
 * What a re-route reads of the previous routing's preprocessing: its fabric, ranks, costs,
 * dividers and cost-row profiles. {@link CostDividerUpdate} copies the unchanged cost rows from
 * it, and the route changes compare the new snapshot's switches, groups and dividers with it. A
 * view of arrays the previous routing holds, not a copy; nothing writes to them.
 *
 * @param index    the previous snapshot
 * @param ranks    every switch's rank, by id of {@code index}
 * @param costs    the costs of every switch to every leaf
 * @param dividers divider {@code Π_s} of every switch
 * @param profiles the cost rows' profiles
 */
public record Preprocessed(FabricIndex index, int[] ranks, CostTable costs, int[] dividers, RowProfiles profiles) {
    /** Divider {@code Π_s} of switch {@code s} of {@code index}. */
    public int divider(int s) {
        return dividers[s];
    }
}
