/**
 * Dmodc's preprocessing, the first stage of the pipeline: ranks by BFS from the leaves
 * ({@code Ranks}), port groups ({@code Neighbours}) and the destinations of each leaf
 * ({@code LeafDestinations}), then Procedure 1's costs and dividers ({@code CostDivider}, or
 * {@code CostDividerUpdate} from a previous routing), each cost row profiled as a mode and a few
 * segments ({@code RowProfiles}) as soon as it is final. Also the primitives the later stages
 * share: eight cost bytes in a long ({@code ByteLanes}), bit ranges, boundary events.
 * Depends on no other Dmodc package.
 */
package org.fabricmanager.routing.dmodc.preprocess;
