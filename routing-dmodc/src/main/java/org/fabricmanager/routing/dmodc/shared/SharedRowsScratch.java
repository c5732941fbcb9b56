package org.fabricmanager.routing.dmodc.shared;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.BitRanges;
import org.fabricmanager.routing.dmodc.preprocess.BoundaryEvents;

/**
 * One worker's buffers for building {@link SharedRows} sets ({@link SharedRowsBuilder},
 * {@link SharedRowsSplice}), reused from set to set: the boundary events and per-leaf masks of the
 * sweeps, and the intervals found so far with their entries, grown as needed; a set copies what it
 * keeps.
 */
final class SharedRowsScratch {
    final BoundaryEvents events;
    final byte[] cost = new byte[SharedRows.MAX_MEMBERS];
    int[] from = new int[64];
    int[] to = new int[64];
    int[] entryStart = new int[65];
    byte[] entryMember = new byte[256];
    byte[] entryCost = new byte[256];
    int intervals;
    int entryCount;

    final long[] offRows;
    final long[] startRows;
    /** {@link SharedRowsSplice#splice}: the leaves where the rows differ, and its windows as (from, to) pairs. */
    final long[] differ;
    int[] windows = new int[16];
    private int[] windowStart = new int[16];
    private int[] copyFrom = new int[16];
    private int[] copyTo = new int[16];

    int[] windowStart(int size) {
        if (windowStart.length < size) {
            windowStart = new int[size];
        }
        return windowStart;
    }

    int[] copyFrom(int size) {
        if (copyFrom.length < size) {
            copyFrom = new int[size];
        }
        return copyFrom;
    }

    int[] copyTo(int size) {
        if (copyTo.length < size) {
            copyTo = new int[size];
        }
        return copyTo;
    }

    /**
     * {@link SharedRowsSplice}'s leaf-by-leaf sweep of its windows: the cost row {@code j} starts a segment
     * with at leaf {@code l}, at {@code 64 l + j}.
     */
    final byte[] startCost;

    SharedRowsScratch(int leaves) {
        events = new BoundaryEvents(leaves);
        offRows = new long[leaves];
        startRows = new long[leaves];
        startCost = new byte[leaves * SharedRows.MAX_MEMBERS];
        differ = new long[(leaves + 63) >>> 6];
    }

    void reset() {
        intervals = 0;
        entryCount = 0;
        entryStart[0] = 0;
    }

    void open(int p, long active) {
        if (intervals + 1 >= from.length) {
            from = Arrays.copyOf(from, from.length * 2);
            to = Arrays.copyOf(to, to.length * 2);
            entryStart = Arrays.copyOf(entryStart, from.length + 1);
        }
        int needed = entryCount + Long.bitCount(active);
        if (needed > entryMember.length) {
            int size = Math.max(needed, entryMember.length * 2);
            entryMember = Arrays.copyOf(entryMember, size);
            entryCost = Arrays.copyOf(entryCost, size);
        }
        from[intervals] = p;
        long bits = active;
        while (bits != 0) {
            int j = Long.numberOfTrailingZeros(bits);
            bits &= bits - 1;
            entryMember[entryCount] = (byte) j;
            entryCost[entryCount] = cost[j];
            entryCount++;
        }
    }

    void close(int p) {
        to[intervals] = p;
        intervals++;
        entryStart[intervals] = entryCount;
    }

    /** Drops and merges intervals over the leaves of {@code unreached}, compacting in place. */
    void mergeOver(long[] unreached) {
        int out = 0;
        int entriesOut = 0;
        for (int i = 0; i < intervals; i++) {
            if (BitRanges.allSet(unreached, from[i], to[i])) {
                continue;
            }
            int e0 = entryStart[i];
            int e1 = entryStart[i + 1];
            if (out > 0 && BitRanges.allSet(unreached, to[out - 1], from[i])
                    && sameEntries(entryStart[out - 1], entriesOut, e0, e1)) {
                to[out - 1] = to[i];
                continue;
            }
            from[out] = from[i];
            to[out] = to[i];
            entryStart[out] = entriesOut;
            for (int e = e0; e < e1; e++) {
                entryMember[entriesOut] = entryMember[e];
                entryCost[entriesOut] = entryCost[e];
                entriesOut++;
            }
            out++;
        }
        intervals = out;
        entryCount = entriesOut;
        entryStart[out] = entriesOut;
    }

    private boolean sameEntries(int a0, int a1, int b0, int b1) {
        if (a1 - a0 != b1 - b0) {
            return false;
        }
        for (int k = 0; k < a1 - a0; k++) {
            if (entryMember[a0 + k] != entryMember[b0 + k] || entryCost[a0 + k] != entryCost[b0 + k]) {
                return false;
            }
        }
        return true;
    }
}
