package org.fabricmanager.routing.dmodc.shared;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.BitRanges;
import org.fabricmanager.routing.dmodc.preprocess.BoundaryEvents;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;

/**
 * Builds a {@link SharedRows} set from the cost rows of its members: finds the stretches of leaves
 * where some row is off its mode (the set's intervals) by a sweep over the boundaries of the rows'
 * segments ({@link BoundaryEvents}); leaves no asker reaches are left out of the sweep and merged
 * over. The sweep writes into one worker's {@link SharedRowsScratch}, reused from set to set; the
 * set keeps copies.
 */
final class SharedRowsBuilder {
    private SharedRowsBuilder() {
    }

    /**
     * Merges the rows of {@code members} (ascending switch ids, at most {@link SharedRows#MAX_MEMBERS}) from
     * their profiles (rows without one are scanned), precomputing masks for {@code threshold}.
     */
    static SharedRows build(int[] members, CostTable costs, RowProfiles profiles, int threshold,
                            SharedRowsScratch x) {
        return build(members, costs, profiles, threshold, null, x);
    }

    /**
     * The same, where the leaves set in {@code unreached} (a bit set, may be null) are reached by
     * none of the switches that ask: what the masks say there does not matter, so intervals lying
     * wholly on such leaves are dropped, and two intervals with the same rows and costs separated
     * only by such leaves become one (a pod's interval on the top switches of a plane is otherwise
     * split at every destination leaf that lost its uplink of that plane).
     */
    static SharedRows build(int[] members, CostTable costs, RowProfiles profiles, int threshold, long[] unreached,
                            SharedRowsScratch x) {
        int m = members.length;
        if (m == 0 || m > SharedRows.MAX_MEMBERS) {
            throw new IllegalArgumentException(m + " rows, expected 1 to " + SharedRows.MAX_MEMBERS);
        }
        long[] classes = new long[CostTable.INFINITE + 1];
        sweepEvents(members, costs, profiles, unreached, x, classes);
        if (unreached != null) {
            x.mergeOver(unreached);
        }
        return fromScratch(members, classes, threshold, unreached == null, x);
    }

    /** Per cost {@code v}, the rows whose mode is below {@code v}, from the rows by mode. */
    static long[] lessThanModes(long[] classes) {
        long[] lessThanMode = new long[CostTable.INFINITE + 1];
        for (int v = 1; v <= CostTable.INFINITE; v++) {
            lessThanMode[v] = lessThanMode[v - 1] | classes[v - 1];
        }
        return lessThanMode;
    }

    /** The set of the intervals in {@code x}, its rows' modes given as {@code classes} (rows by mode). */
    private static SharedRows fromScratch(int[] members, long[] classes, int threshold, boolean exact,
                                          SharedRowsScratch x) {
        long[] lessThanMode = lessThanModes(classes);
        int n = x.intervals;
        int entries = x.entryCount;
        SharedRows.IntervalTable intervals = new SharedRows.IntervalTable(n, Arrays.copyOf(x.from, n),
                Arrays.copyOf(x.to, n), Arrays.copyOf(x.entryStart, n + 1), Arrays.copyOf(x.entryMember, entries),
                Arrays.copyOf(x.entryCost, entries));
        return SharedRows.withMasks(members.clone(), lessThanMode, intervals, threshold, exact);
    }

    /** The intervals into {@code x} by a sweep over the boundaries of the rows' segments; the rows' modes into {@code classes}. */
    private static void sweepEvents(int[] members, CostTable costs, RowProfiles profiles, long[] unreached,
                                    SharedRowsScratch x, long[] classes) {
        int m = members.length;
        int leaves = costs.leafCount();
        x.events.clear();
        for (int j = 0; j < m; j++) {
            int u = members[j];
            int mode = profiles.mode(u);
            classes[mode] |= 1L << j;
            int[] segments = profiles.segments(u);
            if (segments != null) {
                for (int g = 0; g < segments.length; g += 3) {
                    // A segment lying wholly on leaves no asker reaches changes no mask that is
                    // read (mergeOver would drop or merge its intervals): not swept at all. On a
                    // plane's sets these are the ~100 destination leaves that lost their uplink of
                    // the plane, repeated in every member's row.
                    if (unreached != null && BitRanges.allSet(unreached, segments[g], segments[g + 1])) {
                        continue;
                    }
                    x.events.add(segments[g], j, segments[g + 2], true);
                    x.events.add(segments[g + 1], j, 0, false);
                }
            } else {
                addRuns(x, costs, u, j, mode, leaves);
            }
        }
        // Sweep the boundaries: an interval is a maximal stretch with the same off-mode rows and costs.
        x.reset();
        long active = 0;
        long[] positions = x.events.positions();
        for (int word = 0; word < positions.length; word++) {
            long bits = positions[word];
            while (bits != 0) {
                int p = (word << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                if (active != 0) {
                    x.close(p);
                }
                for (int e = x.events.firstEnd(p); e >= 0; e = x.events.next(e)) {
                    active &= ~(1L << x.events.a(e));
                }
                for (int e = x.events.firstStart(p); e >= 0; e = x.events.next(e)) {
                    int j = x.events.a(e);
                    active |= 1L << j;
                    x.cost[j] = (byte) x.events.b(e);
                }
                if (active != 0 && p < leaves) {
                    x.open(p, active);
                }
            }
        }
    }

    /** The runs of a row without a profile where it is off {@code mode}, as events of row {@code j}. */
    private static void addRuns(SharedRowsScratch x, CostTable costs, int u, int j, int mode, int leaves) {
        byte[] c = costs.array();
        int row = u * leaves;
        int l = 0;
        while (l < leaves) {
            int v = c[row + l];
            if (v == mode) {
                l++;
                continue;
            }
            int start = l;
            while (l < leaves && c[row + l] == v) {
                l++;
            }
            x.events.add(start, j, v, true);
            x.events.add(l, j, 0, false);
        }
    }
}
