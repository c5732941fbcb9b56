package org.fabricmanager.routing.dmodc.shared;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.BitRanges;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;

/**
 * Builds a {@link SharedRows} set from a set of nearly the same rows: the intervals the two share are
 * copied, with their masks, and only windows around the leaves where the rows differ are swept, leaf
 * by leaf. What it is for, and why it gives exactly the set {@link SharedRowsBuilder#build} gives,
 * is said at {@link #splice}.
 */
final class SharedRowsSplice {
    private SharedRowsSplice() {
    }

    /**
     * The set of {@code members} (no leaves left out) from {@code like}, a set built the same way
     * whose rows are nearly the same, or null when it does not apply (a different number of rows,
     * a row's mode different or a row without a profile, or the rows differing on too many leaves).
     *
     * <p>Why: the pod sets of a degraded fat tree have nearly an interval per leaf each, almost all the
     * same from pod to pod (level-2 switch {@code (P, j)}'s cost to a leaf of another pod depends on
     * that leaf and the plane {@code j}, not on {@code P}); the rows of two pods' sets differ on the
     * two pods' own leaves and on the few leaves a level-2 switch reaches differently. Where the
     * rows are the same at a leaf and at the leaf before it, the two sets have the same interval
     * boundary (or none) there, so the intervals of {@code like} that lie wholly on such leaves are
     * this set's too. The leaves where the rows differ ({@link RowDifferences}) are widened into
     * windows that start and end where no interval of {@code like} is cut, and only the windows are
     * swept, over this set's rows.
     */
    static SharedRows splice(SharedRows like, int[] members, CostTable costs, RowProfiles profiles, int threshold,
                             SharedRowsScratch x) {
        int m = members.length;
        if (!like.exact() || like.size() != m) {
            return null;
        }
        int leaves = costs.leafCount();
        long[] differ = x.differ;
        Arrays.fill(differ, 0L);
        long[] classes = new long[CostTable.INFINITE + 1];
        for (int j = 0; j < m; j++) {
            int mode = profiles.mode(members[j]);
            int[] mine = profiles.segments(members[j]);
            int[] theirs = profiles.segments(like.member(j));
            if (mode != profiles.mode(like.member(j)) || mine == null || theirs == null) {
                return null;
            }
            classes[mode] |= 1L << j;
            RowDifferences.add(mine, theirs, mode, leaves, differ);
        }
        int windows = windows(like, differ, leaves, x);
        if (windows < 0) {
            return null;
        }
        int[] window = x.windows;
        // The windows' intervals swept into x; like's between them copied a run at a time, with
        // their rows and threshold masks (the same entries give the same rows, and the same masks
        // when the threshold is: the rows' modes are the same).
        SharedRows.IntervalTable likeTable = like.intervalTable();
        SharedRows.Masks likeMasks = like.masks();
        x.reset();
        int[] windowStart = x.windowStart(windows + 1);
        int[] copyFrom = x.copyFrom(windows + 1);
        int[] copyTo = x.copyTo(windows + 1);
        int copied = 0;
        int copiedEntries = 0;
        int i = 0;
        for (int w = 0; w <= windows; w++) {
            int a = w < windows ? window[2 * w] : leaves;
            copyFrom[w] = i;
            while (i < like.intervals() && like.to(i) <= a) {
                i++;
            }
            copyTo[w] = i;
            copied += i - copyFrom[w];
            copiedEntries += likeTable.entryStart()[i] - likeTable.entryStart()[copyFrom[w]];
            windowStart[w] = x.intervals;
            if (w < windows) {
                int b = window[2 * w + 1];
                sweepWindow(members, profiles, a, b, x);
                while (i < like.intervals() && like.from(i) < b) {
                    i++;
                }
            }
        }
        int n = copied + x.intervals;
        int entries = copiedEntries + x.entryCount;
        long[] lessThanMode = SharedRowsBuilder.lessThanModes(classes);
        SharedRows.IntervalTable into = SharedRows.IntervalTable.empty(n, entries);
        SharedRows.Masks intoMasks = SharedRows.Masks.empty(threshold, n);
        SharedRows rows = new SharedRows(members.clone(), lessThanMode, into, intoMasks, true);
        boolean sameThreshold = like.threshold() == threshold;
        int out = 0;
        for (int w = 0; w <= windows; w++) {
            int c0 = copyFrom[w];
            int c1 = copyTo[w];
            if (c1 > c0) {
                int len = c1 - c0;
                int e0 = likeTable.entryStart()[c0];
                int eShift = into.entryStart()[out] - e0;
                System.arraycopy(likeTable.from(), c0, into.from(), out, len);
                System.arraycopy(likeTable.to(), c0, into.to(), out, len);
                for (int k = 0; k < len; k++) {
                    into.entryStart()[out + k] = likeTable.entryStart()[c0 + k] + eShift;
                }
                int e1 = likeTable.entryStart()[c1];
                System.arraycopy(likeTable.entryMember(), e0, into.entryMember(), e0 + eShift, e1 - e0);
                System.arraycopy(likeTable.entryCost(), e0, into.entryCost(), e0 + eShift, e1 - e0);
                into.entryStart()[out + len] = e1 + eShift;
                if (sameThreshold) {
                    System.arraycopy(likeMasks.entryRows(), c0, intoMasks.entryRows(), out, len);
                    System.arraycopy(likeMasks.atThreshold(), c0, intoMasks.atThreshold(), out, len);
                } else {
                    for (int k = out; k < out + len; k++) {
                        rows.masksOf(k);
                    }
                }
                out += len;
            }
            if (w < windows) {
                for (int k = windowStart[w]; k < windowStart[w + 1]; k++) {
                    int e0 = x.entryStart[k];
                    int e1 = x.entryStart[k + 1];
                    int at = into.entryStart()[out];
                    into.from()[out] = x.from[k];
                    into.to()[out] = x.to[k];
                    System.arraycopy(x.entryMember, e0, into.entryMember(), at, e1 - e0);
                    System.arraycopy(x.entryCost, e0, into.entryCost(), at, e1 - e0);
                    into.entryStart()[out + 1] = at + e1 - e0;
                    rows.masksOf(out);
                    out++;
                }
            }
        }
        return rows;
    }

    /**
     * The windows around the leaves set in {@code differ}, as (from, to) pairs into
     * {@code x.windows}: how many, or -1 when they cover more than a quarter of the leaves.
     */
    private static int windows(SharedRows like, long[] differ, int leaves, SharedRowsScratch x) {
        // Windows [a, b): each starts at a leaf where like has an interval starting, or none open
        // before it, and ends where like's interval ends, or at a leaf in none: like's intervals are
        // each wholly inside a window or wholly outside.
        int windows = 0;
        int covered = 0;
        int[] window = x.windows;
        for (int l = BitRanges.nextSet(differ, 0, leaves); l < leaves; ) {
            int a = startBefore(like, l);
            int b = l;
            int d = l;
            // Take in differing leaves while they lie in the window or their own window would touch it.
            while (d < leaves && (d < b || startBefore(like, d) <= b)) {
                int e = BitRanges.nextClear(differ, d, leaves);
                b = Math.max(b, endAfter(like, e, leaves));
                d = BitRanges.nextSet(differ, e, leaves);
            }
            if (2 * windows + 2 > window.length) {
                window = Arrays.copyOf(window, window.length * 2);
                x.windows = window;
            }
            window[2 * windows] = a;
            window[2 * windows + 1] = b;
            windows++;
            covered += b - a;
            l = d;
        }
        return covered > leaves / 4 ? -1 : windows;
    }

    /**
     * Where a window reaching back to {@code l - 1} must start: the start of the interval holding
     * leaf {@code l - 1}, or {@code l} when none does.
     */
    private static int startBefore(SharedRows like, int l) {
        int i = like.intervalAt(l - 1);
        return i < 0 ? l : like.from(i);
    }

    /** Where a window reaching to {@code l} must end: the end of the interval holding {@code l}, or {@code l}. */
    private static int endAfter(SharedRows like, int l, int leaves) {
        if (l >= leaves) {
            return leaves;
        }
        int i = like.intervalAt(l);
        return i < 0 ? l : like.to(i);
    }

    /**
     * The intervals of the rows of {@code members} on the leaves {@code [a, b)}, into {@code x}, as
     * {@link SharedRowsBuilder} finds them, for a window that starts where an interval starts (or none is
     * open before it) and ends where one ends (or none is open at it): a segment reaching into the
     * window from before starts at {@code a}.
     */
    private static void sweepWindow(int[] members, RowProfiles profiles, int a, int b, SharedRowsScratch x) {
        long[] off = x.offRows;
        long[] starts = x.startRows;
        byte[] startCost = x.startCost;
        Arrays.fill(off, a, b, 0L);
        Arrays.fill(starts, a, b, 0L);
        for (int j = 0; j < members.length; j++) {
            int[] segments = profiles.segments(members[j]);
            for (int g = firstEndingAfter(segments, a); g < segments.length && segments[g] < b; g += 3) {
                mark(off, starts, startCost, j, Math.max(segments[g], a),
                        Math.min(segments[g + 1], b), segments[g + 2]);
            }
        }
        intervals(off, starts, startCost, a, b, x);
    }

    /** Row {@code j} starts a segment at cost {@code cost} on leaf {@code from} and is off its mode up to {@code to}. */
    private static void mark(long[] off, long[] starts, byte[] startCost, int j, int from, int to, int cost) {
        long bit = 1L << j;
        starts[from] |= bit;
        startCost[(from << 6) + j] = (byte) cost;
        for (int l = from; l < to; l++) {
            off[l] |= bit;
        }
    }

    /**
     * Opens and closes the intervals of leaves {@code [a, b)} from the rows off their modes ({@code off}) and
     * the rows starting a segment ({@code starts}, with their costs in {@code startCost}) at each leaf. A row
     * starts a segment where it becomes off its mode or changes cost there (a row's consecutive segments have
     * different costs), so the state changes exactly where the mask changes or a row starts, and only the rows
     * starting take a new cost: these are the boundaries where {@link SharedRowsBuilder}'s sweep over the
     * segments' boundaries closes and opens intervals, so the intervals are the same.
     */
    private static void intervals(long[] off, long[] starts, byte[] startCost, int a, int b, SharedRowsScratch x) {
        long previous = 0;
        for (int l = a; l < b; l++) {
            long active = off[l];
            long started = starts[l];
            if (active == previous && started == 0) {
                continue;
            }
            if (previous != 0) {
                x.close(l);
            }
            if (active != 0) {
                for (long bits = started; bits != 0; bits &= bits - 1) {
                    int j = Long.numberOfTrailingZeros(bits);
                    x.cost[j] = startCost[(l << 6) + j];
                }
                x.open(l, active);
            }
            previous = active;
        }
        if (previous != 0) {
            x.close(b);
        }
    }

    /** Index of the first segment (a multiple of 3) ending after leaf {@code a}. */
    private static int firstEndingAfter(int[] segments, int a) {
        int lo = 0;
        int hi = segments.length / 3;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (segments[3 * mid + 1] > a) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return 3 * lo;
    }
}
