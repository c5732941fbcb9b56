package org.fabricmanager.routing.dmodc.preprocess;

import java.util.Arrays;

/**
 * One worker's scratch for the down pass of Procedure 1 ({@link DownPass#pullDown}): the cost
 * changes of the up neighbours' rows, by leaf position (events carry the old and the new cost), how
 * many neighbours currently have each cost, and the per-leaf counters of the fallback; also the
 * buffers for profiling the rows the worker finishes ({@link RowProfiles#profile}) and for
 * {@link UpSets#lower}. Made once per worker and reused from row to row, so that no row allocates.
 */
final class DownScratch {
    final int[] histogram = new int[CostTable.INFINITE + 1];
    final int[] segments;
    final int[] count = new int[CostTable.INFINITE + 1];
    final long[] present = new long[2];
    final BoundaryEvents events;
    final int[] leafStamp;
    final int[] leafCount;
    int[] excepted = new int[16];
    int[] saved = new int[16];
    /** Scratch for {@link UpSets#lower}: the leaves it recomputes and their values before. */
    final int[] fragile;
    final byte[] saved8;
    int leafEpoch;

    /** Worker {@code worker}'s scratch from {@code scratches}, made on its first use. */
    static DownScratch of(DownScratch[] scratches, int worker, int leaves) {
        if (scratches[worker] == null) {
            scratches[worker] = new DownScratch(leaves);
        }
        return scratches[worker];
    }

    private DownScratch(int leaves) {
        events = new BoundaryEvents(leaves);
        segments = new int[3 * (leaves / 8) + 3];
        leafStamp = new int[leaves];
        leafCount = new int[leaves];
        fragile = new int[leaves];
        saved8 = new byte[leaves];
    }

    void reset() {
        Arrays.fill(count, 0);
        events.clear();
    }

    /** At leaf position {@code p}, one neighbour's cost goes from {@code old} to {@code now}. */
    void event(int p, int old, int now) {
        events.add(p, old, now, true);
    }

    /** Applies the changes at position {@code p}. */
    void apply(int p) {
        for (int e = events.firstStart(p); e >= 0; e = events.next(e)) {
            count[events.a(e)]--;
            count[events.b(e)]++;
        }
        for (int e = events.firstStart(p); e >= 0; e = events.next(e)) {
            mark(events.a(e));
            mark(events.b(e));
        }
    }

    void refreshPresent() {
        present[0] = 0;
        present[1] = 0;
        for (int v = 0; v < count.length; v++) {
            if (count[v] > 0) {
                present[v >>> 6] |= 1L << v;
            }
        }
    }

    private void mark(int v) {
        if (count[v] > 0) {
            present[v >>> 6] |= 1L << v;
        } else {
            present[v >>> 6] &= ~(1L << v);
        }
    }

    /** The lowest cost any profiled neighbour currently has. */
    int lowest() {
        return present[0] != 0 ? Long.numberOfTrailingZeros(present[0])
                : 64 + Long.numberOfTrailingZeros(present[1]);
    }
}
