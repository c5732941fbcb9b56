package org.fabricmanager.routing.dmodc.shared;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;

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
 * a mask is the last of a few steps (the interval's distinct costs), not a walk over its rows. A
 * degraded fat tree repeats the same few off-mode leaves in every row of a pod or plane; merging the
 * rows here instead of in every neighbour's own sweep is what keeps Dmodc's routes phase close to
 * the intact case. Immutable once built ({@link SharedRowsBuilder} sweeps the rows,
 * {@link SharedRowsSplice} reuses a set of nearly the same rows).
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
    // Per interval, for lessThan below any cost: the rows it lists (entryRows) and its entries' costs as
    // steps, ascending distinct costs with the rows listed at that cost or below (stepStart, CSR).
    private final long[] entryRows;
    private final int[] stepStart;
    private final byte[] stepCost;
    private final long[] stepRows;

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
     * What {@link #lessThan} reads besides the modes: the own cost whose masks are precomputed
     * ({@code threshold}) and each interval's mask at it ({@code atThreshold}); per interval the rows
     * it lists ({@code entryRows}) and its steps ({@code [stepStart[i], stepStart[i + 1])}: ascending
     * distinct costs, each with the rows listed at that cost or below).
     */
    record MaskSteps(int threshold, long[] atThreshold, long[] entryRows, int[] stepStart, byte[] stepCost,
                     long[] stepRows) {
        /** Steps of {@code count} intervals with {@code entries} entries in all, zero, to be filled. */
        static MaskSteps empty(int threshold, int count, int entries) {
            return new MaskSteps(threshold, new long[count], new long[count], new int[count + 1], new byte[entries],
                    new long[entries]);
        }
    }

    /**
     * A set whose steps and threshold masks fill the arrays of {@code steps}: {@link SharedRowsSplice}
     * fills them, or {@link #withSteps}. Only unpacks the arrays, which the masks read directly.
     */
    SharedRows(int[] member, long[] lessThanMode, IntervalTable intervals, MaskSteps steps, boolean exact) {
        this.exact = exact;
        this.member = member;
        this.lessThanMode = lessThanMode;
        this.count = intervals.count();
        this.from = intervals.from();
        this.to = intervals.to();
        this.entryStart = intervals.entryStart();
        this.entryMember = intervals.entryMember();
        this.entryCost = intervals.entryCost();
        this.threshold = steps.threshold();
        this.atThreshold = steps.atThreshold();
        this.entryRows = steps.entryRows();
        this.stepStart = steps.stepStart();
        this.stepCost = steps.stepCost();
        this.stepRows = steps.stepRows();
    }

    /** The set of {@code intervals}, its steps and masks at {@code threshold} computed here. */
    static SharedRows withSteps(int[] member, long[] lessThanMode, IntervalTable intervals, int threshold,
                                boolean exact) {
        SharedRows rows = new SharedRows(member, lessThanMode, intervals,
                MaskSteps.empty(threshold, intervals.count(), intervals.entryCost().length), exact);
        rows.buildSteps();
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
        return v == threshold ? atThreshold[i] : fromSteps(i, v);
    }

    /** Built with no leaves left out: its intervals are exact at every leaf. */
    boolean exact() {
        return exact;
    }

    /** The arrays of its intervals (shared, not copied: read them only). */
    IntervalTable intervalTable() {
        return new IntervalTable(count, from, to, entryStart, entryMember, entryCost);
    }

    /** The arrays of its steps and threshold masks (shared, not copied: read them only). */
    MaskSteps maskSteps() {
        return new MaskSteps(threshold, atThreshold, entryRows, stepStart, stepCost, stepRows);
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

    /** {@link #lessThan} from interval {@code i}'s steps. */
    long fromSteps(int i, int v) {
        // The rows it does not list are at their modes; of those it lists, the ones below v are the
        // last step below v. An interval on a pod's own leaves lists all 32 rows at two or three costs.
        long listed = 0;
        for (int t = stepStart[i]; t < stepStart[i + 1] && stepCost[t] < v; t++) {
            listed = stepRows[t];
        }
        return (lessThanMode[v] & ~entryRows[i]) | listed;
    }

    /**
     * The steps of every interval and its mask at the threshold, in one pass over its entries: each
     * entry's row goes into its cost's mask, and the costs present (at most 128, two words of bits)
     * are then taken in ascending order, so an interval costs one pass plus one step per distinct
     * cost (a degraded pod's set has about 1,700 intervals, most with one entry).
     */
    private void buildSteps() {
        long[] byCost = new long[CostTable.INFINITE + 1];
        int n = 0;
        for (int i = 0; i < count; i++) {
            stepStart[i] = n;
            n = stepsOf(i, n, byCost);
        }
        stepStart[count] = n;
    }

    /**
     * Interval {@code i}'s rows, steps (written from {@code n}; returns where they end) and mask at
     * the threshold; {@code byCost} is zeroes of {@code INFINITE + 1} words, left as it was found.
     */
    int stepsOf(int i, int n, long[] byCost) {
        long rows = 0;
        long low = 0;
        long high = 0;
        for (int e = entryStart[i]; e < entryStart[i + 1]; e++) {
            int c = entryCost[e];
            long bit = 1L << entryMember[e];
            rows |= bit;
            byCost[c] |= bit;
            if (c < 64) {
                low |= 1L << c;
            } else {
                high |= 1L << c; // Java shifts by the low six bits: bit c - 64
            }
        }
        entryRows[i] = rows;
        long atOrBelow = 0;
        long below = 0; // rows listed below the threshold
        for (int half = 0; half < 2; half++) {
            for (long costs = half == 0 ? low : high; costs != 0; costs &= costs - 1) {
                int c = (half << 6) + Long.numberOfTrailingZeros(costs);
                atOrBelow |= byCost[c];
                byCost[c] = 0;
                stepCost[n] = (byte) c;
                stepRows[n] = atOrBelow;
                n++;
                if (c < threshold) {
                    below = atOrBelow;
                }
            }
        }
        atThreshold[i] = (lessThanMode[threshold] & ~rows) | below;
        return n;
    }
}
