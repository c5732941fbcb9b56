package org.fabricmanager.daemon.store;

import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.fabricmanager.topology.Guids;

/**
 * Which destination index each end node (by GUID) uses. Indices never move once assigned, even when
 * a node disappears for a while, so that tables elsewhere stay valid; new nodes take the lowest free
 * indices in the order given (topological order, so that Dmodc balances load). Mutable; owned by the
 * daemon's control thread.
 */
public final class DestinationIndexMap {
    private final Map<Long, Integer> indexByGuid = new HashMap<>();
    private final BitSet used = new BitSet();

    /** The highest index given, or -1 when none is. */
    public int highestIndex() {
        return used.length() - 1;
    }

    /** The index of {@code guid}, or -1 when it has none. */
    public int indexOf(long guid) {
        Integer i = indexByGuid.get(guid);
        return i == null ? -1 : i;
    }

    public boolean contains(long guid) {
        return indexByGuid.containsKey(guid);
    }

    public int size() {
        return indexByGuid.size();
    }

    /**
     * Records an existing assignment (when loading).
     *
     * @throws IllegalArgumentException when the GUID or the index is already taken
     */
    public void put(long guid, int index) {
        if (index < 0) {
            throw new IllegalArgumentException("negative index " + index + " for " + Guids.format(guid));
        }
        if (indexByGuid.containsKey(guid)) {
            throw new IllegalArgumentException("node " + Guids.format(guid) + " already has index " + indexByGuid.get(guid));
        }
        if (used.get(index)) {
            throw new IllegalArgumentException("index " + index + " is already used");
        }
        indexByGuid.put(guid, index);
        used.set(index);
    }

    /**
     * Gives every GUID of {@code guidsInOrder} that has no index the lowest free index, in that order.
     *
     * @return how many indices were assigned
     */
    public int assign(long[] guidsInOrder) {
        int assigned = 0;
        int next = 0;
        for (long guid : guidsInOrder) {
            if (!indexByGuid.containsKey(guid)) {
                next = used.nextClearBit(next);
                indexByGuid.put(guid, next);
                used.set(next);
                assigned++;
            }
        }
        return assigned;
    }

    /** An independent copy (to try an assignment before adopting it). */
    public DestinationIndexMap copy() {
        DestinationIndexMap c = new DestinationIndexMap();
        c.indexByGuid.putAll(indexByGuid);
        c.used.or(used);
        return c;
    }

    /** A read-only view, GUID -> index. */
    public Map<Long, Integer> asMap() {
        return Collections.unmodifiableMap(indexByGuid);
    }
}
