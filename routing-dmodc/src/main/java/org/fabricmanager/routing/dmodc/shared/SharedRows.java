package org.fabricmanager.routing.dmodc.shared;

import java.util.Arrays;

/**
 * The cost rows of a set of switches ({@link #member}s, at most 64, ascending ids) that many other
 * switches have as neighbours (the switches of one pod, for its leaves; the top switches of one
 * plane, for the switches below them), merged once for all of them: each row's mode, and the
 * stretches of leaves where some row is off its mode ("intervals"), each with the rows that are
 * and their costs. Between intervals every row is at its mode, except on leaves that none of the
 * switches asking the set reaches, where a set built with them may say anything (they get no route).
 *
 * <p>What a neighbouring switch asks is formula (1) restricted to these rows: which of them are
 * strictly cheaper than its own cost {@code v} at a leaf, as a bit mask over the member positions
 * ({@link #base} outside the intervals, {@link #lessThan} inside). Masks for one threshold, the
 * most common own cost of the switches that ask, are precomputed per interval; below any other cost
 * a mask is a walk over the rows the interval lists (most list one). A degraded fat tree repeats the
 * same few off-mode leaves in every row of a pod or plane; merging the rows here instead of in every
 * neighbour's own sweep is what keeps Dmodc's routes phase close to the intact case. Immutable once
 * built ({@link SharedRowsBuilder} sweeps the rows, {@link SharedRowsSplice} reuses a set of nearly the
 * same rows).
 */
public final class SharedRows {
    /** Most rows a set may have: masks are one {@code long}. */
    public static final int MAX_MEMBERS = 64;

    private final int[] member;
    private final long[] lessThanMode;
    private final int count;
    private final int[] from;
    private final int[] to;
    private final int[] entryStart;
    private final byte[] entryMember;
    private final byte[] entryCost;
    private final int threshold;
    /** Built with no leaves left out (no {@code unreached}): its intervals are exact at every leaf. */
    private final boolean exact;
    private final long[] atThreshold;
    /** Per interval, the rows it lists: the others are at their modes there. */
    private final long[] entryRows;

    /**
     * The intervals of a set in leaf order, {@code count} of them, and their entries (compressed rows:
     * interval {@code i}'s are {@code [entryStart[i], entryStart[i + 1])}): the rows off their modes
     * there, by position, and their costs.
     */
    record IntervalTable(int count, int[] from, int[] to, int[] entryStart, byte[] entryMember, byte[] entryCost) {
        /** A table of {@code count} intervals and {@code entries} entries, all zero, to be filled. */
        static IntervalTable empty(int count, int entries) {
            return new IntervalTable(count, new int[count], new int[count], new int[count + 1], new byte[entries],
                    new byte[entries]);
        }
    }

    /**
     * What {@link #lessThan} reads besides the modes and the intervals: the own cost whose masks are
     * precomputed ({@code threshold}), each interval's mask at it ({@code atThreshold}) and the rows it
     * lists ({@code entryRows}).
     */
    record Masks(int threshold, long[] atThreshold, long[] entryRows) {
        /** Masks of {@code count} intervals, zero, to be filled. */
        static Masks empty(int threshold, int count) {
            return new Masks(threshold, new long[count], new long[count]);
        }
    }

    /**
     * A set whose threshold masks fill the arrays of {@code masks}: {@link SharedRowsSplice} fills them,
     * or {@link #withMasks}. Only unpacks the arrays, which the masks read directly.
     */
    SharedRows(int[] member, long[] lessThanMode, IntervalTable intervals, Masks masks, boolean exact) {
        this.exact = exact;
        this.member = member;
        this.lessThanMode = lessThanMode;
        this.count = intervals.count();
        this.from = intervals.from();
        this.to = intervals.to();
        this.entryStart = intervals.entryStart();
        this.entryMember = intervals.entryMember();
        this.entryCost = intervals.entryCost();
        this.threshold = masks.threshold();
        this.atThreshold = masks.atThreshold();
        this.entryRows = masks.entryRows();
    }

    /** The set of {@code intervals}, its masks at {@code threshold} computed here. */
    static SharedRows withMasks(int[] member, long[] lessThanMode, IntervalTable intervals, int threshold,
                                boolean exact) {
        SharedRows rows = new SharedRows(member, lessThanMode, intervals, Masks.empty(threshold, intervals.count()),
                exact);
        for (int i = 0; i < intervals.count(); i++) {
            rows.masksOf(i);
        }
        return rows;
    }

    /** Number of rows. */
    int size() {
        return member.length;
    }

    /** Switch id of row {@code j} (ascending in {@code j}). */
    int member(int j) {
        return member[j];
    }

    /** Position of switch {@code s} among the rows, or -1. */
    public int position(int s) {
        int j = Arrays.binarySearch(member, s);
        return j < 0 ? -1 : j;
    }

    /** Number of intervals. */
    public int intervals() {
        return count;
    }

    /** First leaf of interval {@code i}. */
    public int from(int i) {
        return from[i];
    }

    /** End (exclusive) of interval {@code i}. */
    public int to(int i) {
        return to[i];
    }

    /** The own cost whose masks are precomputed ({@link #lessThan} is a lookup for it). */
    public int threshold() {
        return threshold;
    }

    /** Rows whose mode is below {@code v} (cost {@code 0 .. INFINITE}): the mask outside every interval. */
    public long base(int v) {
        return lessThanMode[v];
    }

    /** Rows whose cost in interval {@code i} is below {@code v}. */
    public long lessThan(int i, int v) {
        return v == threshold ? atThreshold[i] : fromEntries(i, v);
    }

    /** Built with no leaves left out: its intervals are exact at every leaf. */
    boolean exact() {
        return exact;
    }

    /** The arrays of its intervals (shared, not copied: read them only). */
    IntervalTable intervalTable() {
        return new IntervalTable(count, from, to, entryStart, entryMember, entryCost);
    }

    /** The arrays of its threshold masks (shared, not copied: read them only). */
    Masks masks() {
        return new Masks(threshold, atThreshold, entryRows);
    }

    /** The interval holding leaf {@code l}, or -1. */
    int intervalAt(int l) {
        if (l < 0) {
            return -1;
        }
        int lo = 0;
        int hi = count - 1;
        while (lo <= hi) { // last interval starting at or before l
            int mid = (lo + hi) >>> 1;
            if (from[mid] <= l) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return hi >= 0 && to[hi] > l ? hi : -1;
    }

    /** {@link #lessThan} from the rows interval {@code i} lists; the others are at their modes there. */
    long fromEntries(int i, int v) {
        long listed = 0;
        for (int e = entryStart[i]; e < entryStart[i + 1]; e++) {
            if (entryCost[e] < v) {
                listed |= 1L << entryMember[e];
            }
        }
        return (lessThanMode[v] & ~entryRows[i]) | listed;
    }

    /** Interval {@code i}'s rows and its mask at the threshold, from its entries. */
    void masksOf(int i) {
        long rows = 0;
        long below = 0;
        for (int e = entryStart[i]; e < entryStart[i + 1]; e++) {
            long bit = 1L << entryMember[e];
            rows |= bit;
            if (entryCost[e] < threshold) {
                below |= bit;
            }
        }
        entryRows[i] = rows;
        atThreshold[i] = (lessThanMode[threshold] & ~rows) | below;
    }
}
