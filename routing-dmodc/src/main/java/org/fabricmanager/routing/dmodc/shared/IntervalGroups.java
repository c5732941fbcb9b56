package org.fabricmanager.routing.dmodc.shared;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;

/**
 * The intervals of one {@link SharedRows} set grouped by their mask at the set's threshold
 * ({@link SharedRows#lessThan} with {@code v} the threshold), and each interval's destinations as
 * one range where they are one. Built once per set, used by every leaf of the set's pod.
 *
 * <p>Why: a leaf's candidates at interval {@code i} are that mask ANDed with the positions the
 * leaf has. In a degraded pod most destination leaves are intervals, but their
 * masks take far fewer values (destination leaves that lost the same uplinks have the same mask).
 * Walking the intervals group by group, a leaf builds each candidate sequence once and writes it
 * at every interval of the group, instead of looking each interval's sequence up in a cache that
 * is too small for a pod's sets.
 */
public final class IntervalGroups {
    private final long[] mask;
    private final int[] start;
    private final int[] order;
    private final int[] destinationFrom;
    private final int[] destinationTo;

    private IntervalGroups(long[] mask, int[] start, int[] order, int[] destinationFrom, int[] destinationTo) {
        this.mask = mask;
        this.start = start;
        this.order = order;
        this.destinationFrom = destinationFrom;
        this.destinationTo = destinationTo;
    }

    /** Groups the intervals of {@code rows} by their mask at its threshold. */
    static IntervalGroups of(SharedRows rows, LeafDestinations destinations) {
        int n = rows.intervals();
        int threshold = rows.threshold();
        long[] masks = new long[n];
        for (int i = 0; i < n; i++) {
            masks[i] = rows.lessThan(i, threshold);
        }
        // Each interval's group by an open-addressing table keyed by the mask (groups numbered in
        // order of first appearance), then a counting sort, which keeps the intervals of a group in
        // ascending order. Why not sort the masks and binary-search them: a degraded pod's set has
        // nearly an interval per destination leaf, and sorting plus a binary search for each cost
        // several times this one pass.
        int bits = 32 - Integer.numberOfLeadingZeros(Math.max(1, 2 * n - 1)) + 1;
        int capacity = 1 << bits;
        long[] keys = new long[capacity];
        int[] ids = new int[capacity]; // group + 1, 0 where empty
        long[] distinct = new long[n];
        int[] groupOf = new int[n];
        int[] start = new int[n + 1];
        int groups = 0;
        for (int i = 0; i < n; i++) {
            long key = masks[i];
            int h = (int) ((key * 0x9E3779B97F4A7C15L) >>> (64 - bits));
            while (ids[h] != 0 && keys[h] != key) {
                h = (h + 1) & (capacity - 1);
            }
            if (ids[h] == 0) {
                keys[h] = key;
                distinct[groups] = key;
                ids[h] = ++groups;
            }
            groupOf[i] = ids[h] - 1;
            start[groupOf[i] + 1]++;
        }
        distinct = Arrays.copyOf(distinct, groups);
        start = Arrays.copyOf(start, groups + 1);
        for (int g = 0; g < groups; g++) {
            start[g + 1] += start[g];
        }
        int[] fill = Arrays.copyOf(start, groups);
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[fill[groupOf[i]]++] = i;
        }
        int[] from = new int[n];
        int[] to = new int[n];
        for (int i = 0; i < n; i++) {
            int first = rows.from(i);
            int last = rows.to(i) - 1;
            if (destinations.contiguous(first) && destinations.chainEnd(first) >= last) {
                from[i] = destinations.first(first);
                to[i] = destinations.first(last) + destinations.count(last);
            } else {
                from[i] = -1;
            }
        }
        return new IntervalGroups(distinct, start, order, from, to);
    }

    /** Number of groups. */
    public int count() {
        return mask.length;
    }

    /** The mask (over the set's rows) of group {@code g}'s intervals at the threshold. */
    public long mask(int g) {
        return mask[g];
    }

    /** First position of group {@code g} in {@link #interval}; the group ends at {@code start(g + 1)}. */
    public int start(int g) {
        return start[g];
    }

    /** The interval at position {@code k} (groups in turn, ascending intervals within a group). */
    public int interval(int k) {
        return order[k];
    }

    /** First destination of interval {@code i}'s leaves when they are one range, else -1. */
    public int destinationFrom(int i) {
        return destinationFrom[i];
    }

    /** End (exclusive) of interval {@code i}'s destinations, when {@link #destinationFrom} is not -1. */
    public int destinationTo(int i) {
        return destinationTo[i];
    }
}
