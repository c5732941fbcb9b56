package org.fabricmanager.topology;

/**
 * The switch columns of a {@link FabricIndex}: per dense switch id (ascending unsigned GUID) its GUID and
 * port count, and the id of each GUID. Handed between the index and the classes that build it.
 */
record SwitchTable(long[] guid, int[] ports, LongIntMap idByGuid) {
    /** A table of {@code n} switches, to be filled. */
    static SwitchTable ofSize(int n) {
        return new SwitchTable(new long[n], new int[n], new LongIntMap(n));
    }
}
