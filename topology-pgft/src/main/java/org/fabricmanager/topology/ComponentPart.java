package org.fabricmanager.topology;

import java.util.HashSet;
import java.util.Set;

/**
 * A pod component (switches up to some level) or a column component (switches from some level
 * up), as a candidate child pod or column. Its anchors are the switches that place it: leaves
 * for a pod, switches of the column's own level for a column.
 */
final class ComponentPart {
    final int root;
    int parent;
    int anchors;
    long smallest = -1L;
    int size;
    final int[] perLevel;
    /** What may not meet twice in one bin (a level and a column for pods, a level and a pod for columns). */
    final Set<Long> signature = new HashSet<>();

    ComponentPart(int root, int levels) {
        this.root = root;
        this.perLevel = new int[levels + 1];
    }

    void see(long guid) {
        if (smallest == -1L || Long.compareUnsigned(guid, smallest) < 0) {
            smallest = guid;
        }
    }

    /** Orders parts by smallest anchor GUID (unsigned), which is how children are numbered. */
    static int compare(ComponentPart x, ComponentPart y) {
        return Long.compareUnsigned(x.smallest, y.smallest);
    }

    static boolean disjoint(Set<Long> a, Set<Long> b) {
        for (Long x : b) {
            if (a.contains(x)) {
                return false;
            }
        }
        return true;
    }

    /** Adds the per-level counts {@code more} to {@code total}. */
    static void add(int[] total, int[] more) {
        for (int i = 0; i < total.length; i++) {
            total[i] += more[i];
        }
    }
}
