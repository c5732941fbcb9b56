package org.fabricmanager.detector;

import java.util.Arrays;

/**
 * Open-addressing map from non-negative int keys to long values, without boxing, for the per-message
 * lookups of a member's view and of its per-peer state ({@code netty.MemberSlots}). Keys are never removed:
 * view entries and peers only ever grow. Not thread-safe.
 */
public final class IntLongMap {
    private static final int EMPTY = -1;

    private int[] keys;
    private long[] values;
    private int size;

    public IntLongMap(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        keys = new int[capacity];
        values = new long[capacity];
        Arrays.fill(keys, EMPTY);
    }

    public int size() {
        return size;
    }

    /** The value of {@code key}, or {@code absent} when it has none (or is negative: no key is). */
    public long get(int key, long absent) {
        if (key < 0) {
            return absent; // -1 marks a free bucket
        }
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            int k = keys[i];
            if (k == key) {
                return values[i];
            }
            if (k == EMPTY) {
                return absent;
            }
        }
    }

    public void put(int key, long value) {
        if (key < 0) {
            throw new IllegalArgumentException("negative key " + key);
        }
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            int k = keys[i];
            if (k == key) {
                values[i] = value;
                return;
            }
            if (k == EMPTY) {
                keys[i] = key;
                values[i] = value;
                if (++size * 2 > keys.length) {
                    grow();
                }
                return;
            }
        }
    }

    /** The keys in ascending order. */
    int[] sortedKeys() {
        int[] out = new int[size];
        int n = 0;
        for (int k : keys) {
            if (k != EMPTY) {
                out[n++] = k;
            }
        }
        Arrays.sort(out);
        return out;
    }

    private void grow() {
        int[] oldKeys = keys;
        long[] oldValues = values;
        keys = new int[oldKeys.length * 2];
        values = new long[oldKeys.length * 2];
        Arrays.fill(keys, EMPTY);
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }

    private static int slot(int key, int mask) {
        return (key * 0x9E3779B9 >>> 7) & mask;
    }
}
