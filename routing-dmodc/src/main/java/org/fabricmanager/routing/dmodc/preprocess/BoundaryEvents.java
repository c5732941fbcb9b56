package org.fabricmanager.routing.dmodc.preprocess;

import java.util.Arrays;

/**
 * Changes of cost along a row of leaves, bucketed by leaf position, for sweeps over segment
 * boundaries: each event carries two ints and is either a segment's start or its end; positions
 * come back in ascending order (a bitmap over the positions), and at one position ends come before
 * starts. Reused from switch to switch without clearing per-position storage (epoch stamps).
 */
public final class BoundaryEvents {
    private final long[] positions;
    private final int[] stamp;
    private final int[] startHead;
    private final int[] endHead;
    private int[] next = new int[64];
    private int[] first = new int[64];
    private int[] second = new int[64];
    private int size;
    private int epoch;

    /** Events at positions {@code 0 .. leaves} (the end of a row's last segment is {@code leaves}). */
    public BoundaryEvents(int leaves) {
        positions = new long[(leaves + 64) >>> 6];
        stamp = new int[leaves + 1];
        startHead = new int[leaves + 1];
        endHead = new int[leaves + 1];
    }

    public void clear() {
        Arrays.fill(positions, 0L);
        size = 0;
        if (++epoch == 0) {
            Arrays.fill(stamp, 0);
            epoch = 1;
        }
    }

    /** Records an event at position {@code p}: a segment start, or an end. */
    public void add(int p, int a, int b, boolean start) {
        if (size == next.length) {
            next = Arrays.copyOf(next, size * 2);
            first = Arrays.copyOf(first, size * 2);
            second = Arrays.copyOf(second, size * 2);
        }
        if (stamp[p] != epoch) {
            stamp[p] = epoch;
            startHead[p] = -1;
            endHead[p] = -1;
            positions[p >>> 6] |= 1L << p;
        }
        first[size] = a;
        second[size] = b;
        if (start) {
            next[size] = startHead[p];
            startHead[p] = size;
        } else {
            next[size] = endHead[p];
            endHead[p] = size;
        }
        size++;
    }

    /** Bitmap of the positions with events: bit {@code p % 64} of word {@code p / 64}. */
    public long[] positions() {
        return positions;
    }

    /** First end event at {@code p} (a position with events), or -1; continue with {@link #next}. */
    public int firstEnd(int p) {
        return endHead[p];
    }

    /** First start event at {@code p} (a position with events), or -1; continue with {@link #next}. */
    public int firstStart(int p) {
        return startHead[p];
    }

    public int next(int e) {
        return next[e];
    }

    /** The event's first int. */
    public int a(int e) {
        return first[e];
    }

    /** The event's second int. */
    public int b(int e) {
        return second[e];
    }
}
