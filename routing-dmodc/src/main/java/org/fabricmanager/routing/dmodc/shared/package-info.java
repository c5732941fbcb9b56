/**
 * Shared neighbour rows, the second stage: the cost rows of the neighbours that many switches have
 * in common (a pod's leaves look up at the same switches) merged once into interval sets
 * ({@code SharedRows}, built or spliced from a similar set), grouped into per-switch blocks
 * ({@code NeighbourBlocks}) and interval groups that the fill sweeps instead of the rows
 * themselves. Depends only on {@code preprocess}.
 */
package org.fabricmanager.routing.dmodc.shared;
