package org.fabricmanager.topology;

import java.util.Arrays;

/**
 * A map from {@code long} keys (GUIDs) to non-negative {@code int} values (dense ids) without boxing:
 * open addressing with linear probing, sized at construction so that it never resizes. Used where a
 * fabric of tens of thousands of switches and nodes is indexed on every change, and a boxed
 * {@code HashMap<Long, Integer>} lookup per link end was most of the cost. Not thread-safe while filled;
 * safely read by many threads once published.
 */
public final class LongIntMap {
    /** What {@link #get} returns for an absent key. */
    public static final int ABSENT = -1;

    private final long[] keys;
    private final int[] values;
    private final int mask;
    private int size;

    /** A map for at most {@code capacity} entries. */
    public LongIntMap(int capacity) {
        int slots = Integer.highestOneBit(Math.max(4, capacity * 2 - 1)) << 1;
        keys = new long[slots];
        values = new int[slots];
        Arrays.fill(values, ABSENT);
        mask = slots - 1;
    }

    private int slot(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    /**
     * Maps {@code key} to {@code value} (at least 0) unless the key is present.
     *
     * @return the value already mapped, or {@link #ABSENT} when this call added it
     */
    public int putIfAbsent(long key, int value) {
        if (value < 0) {
            throw new IllegalArgumentException("negative value " + value);
        }
        int i = slot(key);
        while (values[i] != ABSENT) {
            if (keys[i] == key) {
                return values[i];
            }
            i = (i + 1) & mask;
        }
        if (size + 1 > (mask + 1) / 2 + (mask + 1) / 4) {
            throw new IllegalStateException("map sized for fewer entries than " + (size + 1));
        }
        keys[i] = key;
        values[i] = value;
        size++;
        return ABSENT;
    }

    /** The value of {@code key}, or {@link #ABSENT}. */
    public int get(long key) {
        int i = slot(key);
        while (values[i] != ABSENT) {
            if (keys[i] == key) {
                return values[i];
            }
            i = (i + 1) & mask;
        }
        return ABSENT;
    }

    public boolean containsKey(long key) {
        return get(key) != ABSENT;
    }

    public int size() {
        return size;
    }
}
