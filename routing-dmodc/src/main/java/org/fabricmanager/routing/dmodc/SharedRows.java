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
    /** Built with no leaves left out (no {@code unreached}): its intervals are exact at every leaf. */
    private final boolean exact;
    private final long[] atThreshold;
    // Per interval, for lessThan below any cost: the rows it lists (entryRows) and its entries' costs as
    // steps, ascending distinct costs with the rows listed at that cost or below (stepStart, CSR).
    private final long[] entryRows;
    private final int[] stepStart;
    private final byte[] stepCost;
    private final long[] stepRows;

    private SharedRows(int[] member, long[] lessThanMode, int count, int[] from, int[] to, int[] entryStart,
                       byte[] entryMember, byte[] entryCost, int threshold, long[] atThreshold, boolean exact) {
        this(member, lessThanMode, count, from, to, entryStart, entryMember, entryCost, threshold, atThreshold,
                new long[count], new int[count + 1], new byte[entryCost.length], new long[entryCost.length], exact);
        buildSteps();
    }

    /** A set whose steps and threshold masks fill the arrays given: {@link #splice} fills them, or {@link #buildSteps}. */
    private SharedRows(int[] member, long[] lessThanMode, int count, int[] from, int[] to, int[] entryStart,
                       byte[] entryMember, byte[] entryCost, int threshold, long[] atThreshold, long[] entryRows,
                       int[] stepStart, byte[] stepCost, long[] stepRows, boolean exact) {
        this.exact = exact;
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
        this.entryRows = entryRows;
        this.stepStart = stepStart;
        this.stepCost = stepCost;
        this.stepRows = stepRows;
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
        return v == threshold ? atThreshold[i] : fromSteps(i, v);
    }

    /** {@link #lessThan} from interval {@code i}'s steps. */
    private long fromSteps(int i, int v) {
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
    private int stepsOf(int i, int n, long[] byCost) {
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
        return fromScratch(members, classes, threshold, unreached == null, x);
    }

    /** Per cost {@code v}, the rows whose mode is below {@code v}, from the rows by mode. */
    private static long[] lessThanModes(long[] classes) {
        long[] lessThanMode = new long[CostTable.INFINITE + 1];
        for (int v = 1; v <= CostTable.INFINITE; v++) {
            lessThanMode[v] = lessThanMode[v - 1] | classes[v - 1];
        }
        return lessThanMode;
    }

    /** The set of the intervals in {@code x}, its rows' modes given as {@code classes} (rows by mode). */
    private static SharedRows fromScratch(int[] members, long[] classes, int threshold, boolean exact, Scratch x) {
        long[] lessThanMode = lessThanModes(classes);
        int n = x.intervals;
        int entries = x.entryCount;
        return new SharedRows(members.clone(), lessThanMode, n, Arrays.copyOf(x.from, n),
                Arrays.copyOf(x.to, n), Arrays.copyOf(x.entryStart, n + 1), Arrays.copyOf(x.entryMember, entries),
                Arrays.copyOf(x.entryCost, entries), threshold, new long[n], exact);
    }

    /**
     * The set of {@code members} (no leaves left out) from {@code like}, a set built the same way
     * whose rows are nearly the same, or null when it does not apply (a different number of rows,
     * a row's mode different or a row without a profile, or the rows differing on too many leaves).
     *
     * <p>Why: the 64 pod sets of a degraded fat tree have about 1,700 intervals each, almost all the
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
                             Scratch x) {
        int m = members.length;
        if (!like.exact || like.member.length != m) {
            return null;
        }
        int leaves = costs.leafCount();
        long[] differ = x.differ;
        Arrays.fill(differ, 0L);
        long[] classes = new long[CostTable.INFINITE + 1];
        for (int j = 0; j < m; j++) {
            int mode = profiles.mode(members[j]);
            int[] mine = profiles.segments(members[j]);
            int[] theirs = profiles.segments(like.member[j]);
            if (mode != profiles.mode(like.member[j]) || mine == null || theirs == null) {
                return null;
            }
            classes[mode] |= 1L << j;
            RowDifferences.add(mine, theirs, mode, leaves, differ);
        }
        // Windows [a, b): each starts at a leaf where like has an interval starting, or none open
        // before it, and ends where like's interval ends, or at a leaf in none: like's intervals are
        // each wholly inside a window or wholly outside.
        int windows = 0;
        int covered = 0;
        int[] window = x.windows;
        for (int l = BitRanges.nextSet(differ, 0, leaves); l < leaves; ) {
            int a = like.startBefore(l);
            int b = l;
            int d = l;
            // Take in differing leaves while they lie in the window or their own window would touch it.
            while (d < leaves && (d < b || like.startBefore(d) <= b)) {
                int e = BitRanges.nextClear(differ, d, leaves);
                b = Math.max(b, like.endAfter(e, leaves));
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
        if (covered > leaves / 4) {
            return null;
        }
        // The windows' intervals swept into x; like's between them copied a run at a time, with
        // their steps (the same entries give the same steps) and threshold masks (the same when the
        // threshold is: the rows' modes are the same).
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
            while (i < like.count && like.to[i] <= a) {
                i++;
            }
            copyTo[w] = i;
            copied += i - copyFrom[w];
            copiedEntries += like.entryStart[i] - like.entryStart[copyFrom[w]];
            windowStart[w] = x.intervals;
            if (w < windows) {
                int b = window[2 * w + 1];
                sweepWindow(members, profiles, a, b, x);
                while (i < like.count && like.from[i] < b) {
                    i++;
                }
            }
        }
        int n = copied + x.intervals;
        int entries = copiedEntries + x.entryCount;
        long[] lessThanMode = lessThanModes(classes);
        SharedRows rows = new SharedRows(members.clone(), lessThanMode, n, new int[n], new int[n], new int[n + 1],
                new byte[entries], new byte[entries], threshold, new long[n], new long[n], new int[n + 1],
                new byte[entries], new long[entries], true);
        long[] byCost = new long[CostTable.INFINITE + 1];
        int out = 0;
        int steps = 0;
        for (int w = 0; w <= windows; w++) {
            int c0 = copyFrom[w];
            int c1 = copyTo[w];
            if (c1 > c0) {
                int len = c1 - c0;
                int e0 = like.entryStart[c0];
                int s0 = like.stepStart[c0];
                int eShift = rows.entryStart[out] - e0;
                int sShift = steps - s0;
                System.arraycopy(like.from, c0, rows.from, out, len);
                System.arraycopy(like.to, c0, rows.to, out, len);
                System.arraycopy(like.entryRows, c0, rows.entryRows, out, len);
                for (int k = 0; k < len; k++) {
                    rows.entryStart[out + k] = like.entryStart[c0 + k] + eShift;
                    rows.stepStart[out + k] = like.stepStart[c0 + k] + sShift;
                }
                int e1 = like.entryStart[c1];
                int s1 = like.stepStart[c1];
                System.arraycopy(like.entryMember, e0, rows.entryMember, e0 + eShift, e1 - e0);
                System.arraycopy(like.entryCost, e0, rows.entryCost, e0 + eShift, e1 - e0);
                System.arraycopy(like.stepCost, s0, rows.stepCost, steps, s1 - s0);
                System.arraycopy(like.stepRows, s0, rows.stepRows, steps, s1 - s0);
                System.arraycopy(like.atThreshold, c0, rows.atThreshold, out, len); // redone below if the threshold differs
                out += len;
                steps += s1 - s0;
                rows.entryStart[out] = e1 + eShift;
            }
            if (w < windows) {
                for (int k = windowStart[w]; k < windowStart[w + 1]; k++) {
                    int e0 = x.entryStart[k];
                    int e1 = x.entryStart[k + 1];
                    int at = rows.entryStart[out];
                    rows.from[out] = x.from[k];
                    rows.to[out] = x.to[k];
                    System.arraycopy(x.entryMember, e0, rows.entryMember, at, e1 - e0);
                    System.arraycopy(x.entryCost, e0, rows.entryCost, at, e1 - e0);
                    rows.entryStart[out + 1] = at + e1 - e0;
                    rows.stepStart[out] = steps;
                    steps = rows.stepsOf(out, steps, byCost);
                    out++;
                }
            }
        }
        rows.stepStart[n] = steps;
        if (like.threshold != threshold) {
            for (int k = 0; k < n; k++) {
                rows.atThreshold[k] = rows.fromSteps(k, threshold);
            }
        }
        return rows;
    }

    /**
     * Where a window reaching back to {@code l - 1} must start: the start of the interval holding
     * leaf {@code l - 1}, or {@code l} when none does.
     */
    private int startBefore(int l) {
        int i = intervalAt(l - 1);
        return i < 0 ? l : from[i];
    }

    /** Where a window reaching to {@code l} must end: the end of the interval holding {@code l}, or {@code l}. */
    private int endAfter(int l, int leaves) {
        if (l >= leaves) {
            return leaves;
        }
        int i = intervalAt(l);
        return i < 0 ? l : to[i];
    }

    /** The interval holding leaf {@code l}, or -1. */
    private int intervalAt(int l) {
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

    /**
     * The intervals of the rows of {@code members} on the leaves {@code [a, b)}, into {@code x}, as
     * {@link #sweepLeaves} finds them, for a window that starts where an interval starts (or none is
     * open before it) and ends where one ends (or none is open at it): a segment reaching into the
     * window from before starts at {@code a}.
     */
    private static void sweepWindow(int[] members, RowProfiles profiles, int a, int b, Scratch x) {
        long[] off = x.offRows;
        long[] starts = x.startRows;
        byte[] startCost = x.startCost;
        Arrays.fill(off, a, b, 0L);
        Arrays.fill(starts, a, b, 0L);
        for (int j = 0; j < members.length; j++) {
            int[] segments = profiles.segments(members[j]);
            for (int g = firstEndingAfter(segments, a); g < segments.length && segments[g] < b; g += 3) {
                mark(off, starts, startCost, j, Math.max(segments[g], a), Math.min(segments[g + 1], b), segments[g + 2]);
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
                    mark(off, starts, startCost, j, segments[g], segments[g + 1], segments[g + 2]);
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
        intervals(off, starts, startCost, 0, leaves, x);
    }

    /**
     * Opens and closes the intervals of leaves {@code [a, b)} from the rows off their modes ({@code off}) and
     * the rows starting a segment ({@code starts}, with their costs in {@code startCost}) at each leaf.
     */
    private static void intervals(long[] off, long[] starts, byte[] startCost, int a, int b, Scratch x) {
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
        /** {@link #splice}: the leaves where the rows differ, and its windows as (from, to) pairs. */
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
        /** {@link #sweepLeaves}: the cost row {@code j} starts a segment with at leaf {@code l}, at {@code 64 l + j}. */
        final byte[] startCost;

        Scratch(int leaves) {
            events = new BoundaryEvents(leaves);
            offRows = new long[leaves];
            startRows = new long[leaves];
            startCost = new byte[leaves * MAX_MEMBERS];
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

        /** Appends interval {@code i} of {@code rows} as it is. */
        void copy(SharedRows rows, int i) {
            int e0 = rows.entryStart[i];
            int e1 = rows.entryStart[i + 1];
            if (intervals + 1 >= from.length) {
                from = Arrays.copyOf(from, from.length * 2);
                to = Arrays.copyOf(to, to.length * 2);
                entryStart = Arrays.copyOf(entryStart, from.length + 1);
            }
            int needed = entryCount + e1 - e0;
            if (needed > entryMember.length) {
                int size = Math.max(needed, entryMember.length * 2);
                entryMember = Arrays.copyOf(entryMember, size);
                entryCost = Arrays.copyOf(entryCost, size);
            }
            from[intervals] = rows.from[i];
            to[intervals] = rows.to[i];
            System.arraycopy(rows.entryMember, e0, entryMember, entryCount, e1 - e0);
            System.arraycopy(rows.entryCost, e0, entryCost, entryCount, e1 - e0);
            entryCount += e1 - e0;
            intervals++;
            entryStart[intervals] = entryCount;
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
