package org.fabricmanager.routing.dmodc.preprocess;

import java.util.Arrays;

/**
 * The second pass of Procedure 1 for one switch at a time: its costs lowered through its up
 * neighbours, whose rows are final and profiled ({@link RowProfiles}). Used by the full
 * computation ({@link CostDivider}) for every switch below the top rank, and by the update after
 * faults for the rows it recomputes whole. Profiled neighbours are combined from their modes and
 * segments, identical neighbour rows once; the others are pulled eight leaves at a time
 * ({@link ByteLanes}). Writes only the row of the switch it pulls, so the switches of one rank
 * may be pulled in parallel.
 */
final class DownPass {
    private final byte[] c;
    private final int leaves;
    private final int wide;
    private final Neighbours neighbours;
    private final RowProfiles profiles;

    /** Pulls rows of {@code table} through {@code neighbours}, reading the up neighbours' {@code profiles}. */
    DownPass(CostTable table, Neighbours neighbours, RowProfiles profiles) {
        this.c = table.array();
        this.leaves = table.leafCount();
        this.wide = leaves & ~7;
        this.neighbours = neighbours;
        this.profiles = profiles;
    }

    /**
     * Lowers the costs of {@code s} through its up neighbours (second pass of Procedure 1):
     * {@code c[s][l] = min(c[s][l], c[u][l] + 1)} over the up neighbours {@code u}. Neighbours
     * without a profile are pulled leaf by leaf; the profiled ones together, from their modes
     * and segments: by a sweep over segment boundaries when they have few segments, else
     * through the leaves their segments cover.
     */
    void pullDown(int s, DownScratch x) {
        int row = s * leaves;
        int segmentCount = 0;
        boolean any = false;
        for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
            int u = neighbours.up(i);
            int[] segments = profiles.segments(u);
            if (segments == null) {
                pullWhole(row, u * leaves);
            } else {
                any = true;
                segmentCount += segments.length / 3;
            }
        }
        if (!any) {
            return;
        }
        if (segmentCount <= Math.max(32, leaves / 32)) {
            pullBySweep(s, row, x);
        } else {
            pullByLeaf(s, row, x);
        }
    }

    /**
     * Between two segment boundaries of the profiled up neighbours every one of their costs is
     * constant, so their minimum is too and lowers a whole stretch of the row at once.
     */
    private void pullBySweep(int s, int row, DownScratch x) {
        x.reset();
        int previous = -1;
        for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
            int u = neighbours.up(i);
            int[] segments = profiles.segments(u);
            if (segments == null || previous >= 0 && profiles.same(u, previous)) {
                continue; // an identical row adds nothing to a minimum
            }
            previous = u;
            int mode = profiles.mode(u);
            x.count[mode]++;
            for (int g = 0; g < segments.length; g += 3) {
                x.event(segments[g], mode, segments[g + 2]);
                x.event(segments[g + 1], segments[g + 2], mode);
            }
        }
        x.refreshPresent();
        // [from, p) is the stretch over which the lowest neighbour cost has stayed `value`.
        int from = 0;
        int value = x.lowest();
        long[] positions = x.events.positions();
        for (int word = 0; word < positions.length; word++) {
            long bits = positions[word];
            while (bits != 0) {
                int p = (word << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                x.apply(p);
                int now = x.lowest();
                if (now != value) {
                    lower(row, from, p, value);
                    from = p;
                    value = now;
                }
            }
        }
        lower(row, from, leaves, value);
    }

    /**
     * With {@code M} the smallest mode among the profiled up neighbours, every leaf where some
     * neighbour of mode {@code M} is at its mode gets {@code min(c, M + 1)} in one pass over the
     * row, then the segments below {@code M} lower it further; the leaves where every
     * neighbour of mode {@code M} is in a segment are computed neighbour by neighbour.
     */
    private void pullByLeaf(int s, int row, DownScratch x) {
        int lowest = Integer.MAX_VALUE;
        int atLowest = 0;
        int previous = -1;
        for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
            int u = neighbours.up(i);
            if (profiles.segments(u) == null || previous >= 0 && profiles.same(u, previous)) {
                continue;
            }
            previous = u;
            if (profiles.mode(u) < lowest) {
                lowest = profiles.mode(u);
                atLowest = 1;
            } else if (profiles.mode(u) == lowest) {
                atLowest++;
            }
        }
        if (lowest == CostTable.INFINITE) {
            pullSegments(s, row, CostTable.INFINITE);
            return;
        }
        if (++x.leafEpoch == 0) {
            Arrays.fill(x.leafStamp, 0);
            x.leafEpoch = 1;
        }
        int excepted = 0;
        previous = -1;
        for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
            int u = neighbours.up(i);
            int[] segments = profiles.segments(u);
            if (segments == null || previous >= 0 && profiles.same(u, previous)) {
                continue; // counted once, as in the loop above
            }
            previous = u;
            if (profiles.mode(u) != lowest) {
                continue;
            }
            for (int g = 0; g < segments.length; g += 3) {
                for (int l = segments[g]; l < segments[g + 1]; l++) {
                    if (x.leafStamp[l] != x.leafEpoch) {
                        x.leafStamp[l] = x.leafEpoch;
                        x.leafCount[l] = 0;
                    }
                    if (++x.leafCount[l] == atLowest) {
                        if (excepted == x.excepted.length) {
                            x.excepted = Arrays.copyOf(x.excepted, excepted * 2);
                            x.saved = Arrays.copyOf(x.saved, excepted * 2);
                        }
                        x.excepted[excepted++] = l;
                    }
                }
            }
        }
        for (int k = 0; k < excepted; k++) {
            x.saved[k] = c[row + x.excepted[k]];
        }
        lower(row, 0, leaves, lowest);
        for (int k = 0; k < excepted; k++) {
            int l = x.excepted[k];
            int best = x.saved[k];
            for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
                int v = c[neighbours.up(i) * leaves + l];
                if (v != CostTable.INFINITE && v + 1 < best) {
                    best = v + 1;
                }
            }
            c[row + l] = (byte) best;
        }
        pullSegments(s, row, lowest);
    }

    /** {@code c[s][l] = min(c[s][l], c[u][l] + 1)} over the profiled up neighbours' segments below {@code below}. */
    private void pullSegments(int s, int row, int below) {
        for (int i = neighbours.upStart(s); i < neighbours.upEnd(s); i++) {
            int[] segments = profiles.segments(neighbours.up(i));
            if (segments == null) {
                continue;
            }
            for (int g = 0; g < segments.length; g += 3) {
                int v = segments[g + 2];
                if (v >= below) {
                    continue;
                }
                for (int l = segments[g]; l < segments[g + 1]; l++) {
                    if (v + 1 < c[row + l]) {
                        c[row + l] = (byte) (v + 1);
                    }
                }
            }
        }
    }

    /** {@code c[s][l] = min(c[s][l], value + 1)} for leaves {@code [from, to)} of the row at {@code row}. */
    private void lower(int row, int from, int to, int value) {
        if (value >= CostTable.INFINITE) {
            return;
        }
        byte via = (byte) (value + 1);
        int l = from;
        for (; l < to && (l & 7) != 0; l++) {
            if (via < c[row + l]) {
                c[row + l] = via;
            }
        }
        long via8 = ByteLanes.ONES * via;
        for (; l + 8 <= to; l += 8) {
            ByteLanes.set(c, row + l, ByteLanes.min(ByteLanes.get(c, row + l), via8));
        }
        for (; l < to; l++) {
            if (via < c[row + l]) {
                c[row + l] = via;
            }
        }
    }

    /** {@code c[s][l] = min(c[s][l], c[u][l] + 1)} for every leaf. */
    private void pullWhole(int row, int other) {
        for (int l = 0; l < wide; l += 8) {
            long viaUp = ByteLanes.incrementSaturating(ByteLanes.get(c, other + l));
            ByteLanes.set(c, row + l, ByteLanes.min(ByteLanes.get(c, row + l), viaUp));
        }
        for (int l = wide; l < leaves; l++) {
            int viaUp = c[other + l] == CostTable.INFINITE ? CostTable.INFINITE : c[other + l] + 1;
            if (viaUp < c[row + l]) {
                c[row + l] = (byte) viaUp;
            }
        }
    }
}
