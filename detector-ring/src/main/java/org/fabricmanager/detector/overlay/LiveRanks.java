package org.fabricmanager.detector.overlay;

import java.util.Arrays;

/**
 * The live members of a ring as seen by a broadcast's source, numbered by rank: rank 0 is the source
 * and rank r is the r-th member after it clockwise that is not in the source's dead set. Both
 * directions cost O(|D|), which is small (the dead set holds at most a handful of members between
 * repairs), and nothing of size n is allocated.
 */
public final class LiveRanks {
    private final int size;
    private final int source;
    /** Clockwise distances from the source of the dead members, ascending. */
    private final int[] deadOffsets;

    /**
     * @param size       ring size n
     * @param source     the broadcast's source
     * @param sourceDead the source's dead members, sorted ascending, not containing {@code source}
     */
    public LiveRanks(int size, int source, int[] sourceDead) {
        if (source < 0 || source >= size) {
            throw new IllegalArgumentException("source " + source + " outside ring of " + size);
        }
        this.size = size;
        this.source = source;
        int[] offsets = new int[sourceDead.length];
        for (int i = 0; i < sourceDead.length; i++) {
            int d = sourceDead[i];
            if (d < 0 || d >= size || d == source) {
                throw new IllegalArgumentException("dead member " + d + " invalid for source " + source + " in ring of " + size);
            }
            offsets[i] = Math.floorMod(d - source, size);
        }
        // Sorted members become sorted offsets after one rotation; sort anyway, the array is tiny.
        Arrays.sort(offsets);
        this.deadOffsets = offsets;
    }

    /** Number of live members, the source included. */
    public int liveCount() {
        return size - deadOffsets.length;
    }

    public int source() {
        return source;
    }

    /** The rank of {@code member}, or -1 if it is in the source's dead set. */
    public int rankOf(int member) {
        int offset = Math.floorMod(member - source, size);
        int pos = Arrays.binarySearch(deadOffsets, offset);
        if (pos >= 0) {
            return -1;
        }
        return offset - (-pos - 1);
    }

    /** The member with rank {@code rank} (0 <= rank < liveCount()). */
    public int memberAt(int rank) {
        int offset = rank;
        for (int d : deadOffsets) {
            if (d <= offset) {
                offset++;
            } else {
                break;
            }
        }
        return (source + offset) % size;
    }
}
