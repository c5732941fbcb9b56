package org.fabricmanager.topology;

/**
 * The node columns of a {@link FabricIndex}: per node position (ascending destination index) its GUID,
 * destination index, leaf switch id and leaf port ({@link FabricIndex#NONE} when unattached), the position of
 * each GUID, and the position of each destination index. Handed between the index and the classes that build it.
 */
record NodeTable(long[] guid, int[] index, int[] leaf, int[] leafPort, LongIntMap posByGuid, int destinationCount,
                 int[] byDestination) {
}
