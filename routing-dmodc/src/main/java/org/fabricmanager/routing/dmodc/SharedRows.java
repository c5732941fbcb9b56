package org.fabricmanager.routing.dmodc;

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
 * a mask is the last of a few steps (the interval's distinct costs), not a walk over its rows. A
 * degraded fat tree repeats the same few off-mode leaves in every row of a pod or plane; merging the
 * rows here instead of in every neighbour's own sweep is what keeps Dmodc's routes phase close to
 * the intact case. Immutable once built.
 */
final class SharedRows {
    /** Most rows a set may have: masks are one {@code long}. */
    static final int MAX_MEMBERS = 64;

    private final int[] member;
    private final long[] lessThanMode;
    private final int count;
    private final int[] from;
    private final int[] to;
    private final int[] entryStart;
    private final byte[] entryMember;
    private final byte[] entryCost;
    private final int threshold;
    private final long[] atThreshold;
    // Per interval, for lessThan below any cost: the rows it lists (entryRows) and its entries' costs as
    // steps, ascending distinct costs with the rows listed at that cost or below (stepStart, CSR).
    private final long[] entryRows;
    private final int[] stepStart;
    private final byte[] stepCost;
    private final long[] stepRows;

    private SharedRows(int[] member, long[] lessThanMode, int count, int[] from, int[] to, int[] entryStart,
                       byte[] entryMember, byte[] entryCost, int threshold, long[] atThreshold) {
        this.member = member;
        this.lessThanMode = lessThanMode;
        this.count = count;
        this.from = from;
        this.to = to;
        this.entryStart = entryStart;
        this.entryMember = entryMember;
        this.entryCost = entryCost;
        this.threshold = threshold;
        this.atThreshold = atThreshold;
        this.entryRows = new long[count];
        this.stepStart = new int[count + 1];
        this.stepCost = new byte[entryCost.length];
        this.stepRows = new long[entryCost.length];
        buildSteps();
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
    int position(int s) {
        int j = Arrays.binarySearch(member, s);
        return j < 0 ? -1 : j;
    }

    /** Number of intervals. */
    int intervals() {
        return count;
    }

    /** First leaf of interval {@code i}. */
    int from(int i) {
        return from[i];
    }

    /** End (exclusive) of interval {@code i}. */
    int to(int i) {
        return to[i];
    }

    /** The own cost whose masks are precomputed ({@link #lessThan} is a lookup for it). */
    int threshold() {
        return threshold;
    }

    /** Rows whose mode is below {@code v} (cost {@code 0 .. INFINITE}): the mask outside every interval. */
    long base(int v) {
        return lessThanMode[v];
    }

    /** Rows whose cost in interval {@code i} is below {@code v}. */
    long lessThan(int i, int v) {
        if (v == threshold) {
            return atThreshold[i];
        }
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
        long base = lessThanMode[threshold];
        int n = 0;
        for (int i = 0; i < count; i++) {
            stepStart[i] = n;
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
            atThreshold[i] = (base & ~rows) | below;
        }
        stepStart[count] = n;
    }

    /**
     * Merges the rows of {@code members} (ascending switch ids, at most {@link #MAX_MEMBERS}) from
     * their profiles (rows without one are scanned), precomputing masks for {@code threshold}.
     */
    static SharedRows build(int[] members, CostTable costs, RowProfiles profiles, int threshold, Scratch x) {
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
                            Scratch x) {
        return build(members, costs, profiles, threshold, unreached, x, Sweep.CHOOSE);
    }

    /** How {@link #build} finds the intervals; the result is the same (see {@link #sweepLeaves}). */
    enum Sweep {
        /** By the number of boundaries: leaf by leaf when there are more than an eighth of the leaves. */
        CHOOSE,
        /** Over the boundaries of the rows' segments ({@link BoundaryEvents}). */
        EVENTS,
        /** Leaf by leaf over a mask of the rows off their modes at each leaf. */
        LEAVES
    }

    /** {@link #build}, the intervals found as {@code sweep} says. */
    static SharedRows build(int[] members, CostTable costs, RowProfiles profiles, int threshold, long[] unreached,
                            Scratch x, Sweep sweep) {
        int m = members.length;
        if (m == 0 || m > MAX_MEMBERS) {
            throw new IllegalArgumentException(m + " rows, expected 1 to " + MAX_MEMBERS);
        }
        int leaves = costs.leafCount();
        long[] classes = new long[CostTable.INFINITE + 1];
        boolean byLeaves = sweep == Sweep.LEAVES;
        if (sweep == Sweep.CHOOSE) {
            int boundaries = 0;
            for (int j = 0; j < m; j++) {
                int[] segments = profiles.segments(members[j]);
                boundaries += segments == null ? leaves : 2 * segments.length / 3;
            }
            byLeaves = boundaries > leaves / 8;
        }
        if (byLeaves) {
            for (int j = 0; j < m; j++) {
                classes[profiles.mode(members[j])] |= 1L << j;
            }
            sweepLeaves(members, costs, profiles, unreached, x);
        } else {
            sweepEvents(members, costs, profiles, unreached, x, classes);
        }
        if (unreached != null) {
            x.mergeOver(unreached);
        }
        return fromScratch(members, classes, threshold, x);
    }

    /** The set of the intervals in {@code x}, its rows' modes given as {@code classes} (rows by mode). */
    private static SharedRows fromScratch(int[] members, long[] classes, int threshold, Scratch x) {
        long[] lessThanMode = new long[CostTable.INFINITE + 1];
        for (int v = 1; v <= CostTable.INFINITE; v++) {
            lessThanMode[v] = lessThanMode[v - 1] | classes[v - 1];
        }
        int n = x.intervals;
        int entries = x.entryCount;
        return new SharedRows(members.clone(), lessThanMode, n, Arrays.copyOf(x.from, n),
                Arrays.copyOf(x.to, n), Arrays.copyOf(x.entryStart, n + 1), Arrays.copyOf(x.entryMember, entries),
                Arrays.copyOf(x.entryCost, entries), threshold, new long[n]);
    }

    /** The intervals into {@code x} by a sweep over the boundaries of the rows' segments; the rows' modes into {@code classes}. */
    private static void sweepEvents(int[] members, CostTable costs, RowProfiles profiles, long[] unreached, Scratch x,
                                    long[] classes) {
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

    /**
     * The intervals into {@code x} leaf by leaf: a mask per leaf of the rows off their modes there
     * (segments on leaves no asker reaches left out, as in {@link #sweepEvents}) and of the rows
     * starting a segment there, and an interval wherever that mask changes or a row starts. These
     * are the boundaries where the event sweep closes and opens intervals (a row's consecutive
     * segments have different costs), so the intervals are the same; this costs a pass over the
     * leaves instead of a few operations per boundary, which is cheaper when every row has a
     * hundred one-leaf segments (a pod's switches, each missing the destination leaves that lost
     * their uplink of its plane).
     */
    private static void sweepLeaves(int[] members, CostTable costs, RowProfiles profiles, long[] unreached, Scratch x) {
        int m = members.length;
        int leaves = costs.leafCount();
        byte[] c = costs.array();
        long[] off = x.offRows;
        long[] starts = x.startRows;
        Arrays.fill(off, 0, leaves, 0L);
        Arrays.fill(starts, 0, leaves, 0L);
        // The cost each row starts a segment with, by leaf and row, written while the rows are
        // marked and read back in leaf order: taking it from the cost table at each start read the
        // table by column (a cache miss per read: a pod set's rows start about 3,000 segments at 5%
        // of links removed), which was the largest part of building the 64 pod sets.
        byte[] startCost = x.startCost;
        for (int j = 0; j < m; j++) {
            int u = members[j];
            long bit = 1L << j;
            int[] segments = profiles.segments(u);
            if (segments != null) {
                for (int g = 0; g < segments.length; g += 3) {
                    if (unreached != null && BitRanges.allSet(unreached, segments[g], segments[g + 1])) {
                        continue;
                    }
                    starts[segments[g]] |= bit;
                    startCost[(segments[g] << 6) + j] = (byte) segments[g + 2];
                    for (int l = segments[g]; l < segments[g + 1]; l++) {
                        off[l] |= bit;
                    }
                }
            } else {
                int mode = profiles.mode(u);
                int row = u * leaves;
                for (int l = 0; l < leaves; l++) {
                    int v = c[row + l];
                    if (v != mode) {
                        off[l] |= bit;
                        if (l == 0 || c[row + l - 1] != v) {
                            starts[l] |= bit;
                            startCost[(l << 6) + j] = (byte) v;
                        }
                    }
                }
            }
        }
        // A row starts a segment where it becomes off its mode or changes cost there (a row's
        // consecutive segments have different costs): the state changes exactly where the mask
        // changes or a row starts, and only the rows starting take a new cost.
        x.reset();
        long previous = 0;
        for (int l = 0; l < leaves; l++) {
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
            x.close(leaves);
        }
    }

    /** The runs of a row without a profile where it is off {@code mode}, as events of row {@code j}. */
    private static void addRuns(Scratch x, CostTable costs, int u, int j, int mode, int leaves) {
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

    /** One worker's buffers for {@link #build}, reused from set to set. */
    static final class Scratch {
        final BoundaryEvents events;
        final byte[] cost = new byte[MAX_MEMBERS];
        int[] from = new int[64];
        int[] to = new int[64];
        int[] entryStart = new int[65];
        byte[] entryMember = new byte[256];
        byte[] entryCost = new byte[256];
        int intervals;
        int entryCount;

        final long[] offRows;
        final long[] startRows;
        /** {@link #sweepLeaves}: the cost row {@code j} starts a segment with at leaf {@code l}, at {@code 64 l + j}. */
        final byte[] startCost;

        Scratch(int leaves) {
            events = new BoundaryEvents(leaves);
            offRows = new long[leaves];
            startRows = new long[leaves];
            startCost = new byte[leaves * MAX_MEMBERS];
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
}
