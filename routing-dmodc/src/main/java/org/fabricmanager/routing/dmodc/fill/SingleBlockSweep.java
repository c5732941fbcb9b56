package org.fabricmanager.routing.dmodc.fill;

import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.shared.NeighbourBlocks;
import org.fabricmanager.routing.dmodc.shared.SharedRows;

/**
 * The sweep of a switch whose groups are one block of {@link NeighbourBlocks} (masks of one word),
 * when the rotation sweep does not apply: the own row's runs off its mode ({@link OwnRuns}) and the
 * block's set's intervals are walked together. At the mode, only the set's intervals are looked at,
 * each a lookup and a comparison with the base, and given to the {@link RunWriter} only where they
 * differ from the painted base. One per thread, holding no state of its own.
 */
final class SingleBlockSweep {
    private final NeighbourBlocks blocks;
    private final int leaves;
    private final RunWriter out;
    private final long[] mask;
    private final int[] current;

    SingleBlockSweep(FillInputs in, RunWriter out) {
        this.blocks = in.blocks();
        this.leaves = in.leaves();
        this.out = out;
        this.mask = out.mask();
        this.current = out.current();
    }

    /** Routes block {@code b} into {@code row} at own cost {@code mode} off the first {@code runs} runs of {@code ownRun}. */
    void sweep(byte[] row, int b, int mode, int[] ownRun, int runs) {
        boolean painted = out.painted();
        SharedRows r = blocks.rows(b);
        int count = r.intervals();
        int shift = blocks.groupFrom(b);
        long baseBits = blocks.toGroups(b, r.base(mode)) << shift;
        int run = 0;
        int i = 0;
        int p = 0;
        while (p < leaves) {
            int runFrom = run < runs ? ownRun[3 * run] : leaves;
            if (runFrom <= p) {
                // Inside a run of the own row off its mode: split at the set's boundaries.
                int runTo = ownRun[3 * run + 1];
                int v = ownRun[3 * run + 2];
                while (p < runTo) {
                    while (i < count && r.to(i) <= p) {
                        i++;
                    }
                    long rowsMask;
                    int next;
                    if (v == CostTable.INFINITE) {
                        // No route whatever the candidates: skip the set's masks.
                        rowsMask = 0;
                        next = runTo;
                    } else if (i < count && r.from(i) <= p) {
                        rowsMask = r.lessThan(i, v);
                        next = Math.min(runTo, r.to(i));
                    } else {
                        rowsMask = r.base(v);
                        next = i < count ? Math.min(runTo, r.from(i)) : runTo;
                    }
                    emit(row, p, next, v, blocks.toGroups(b, rowsMask) << shift);
                    p = next;
                }
                run++;
                continue;
            }
            // At the mode up to the next run: only the set's intervals can differ from the base.
            while (i < count && r.to(i) <= p) {
                i++;
            }
            while (p < runFrom) {
                if (i < count && r.from(i) < runFrom) {
                    int from = Math.max(p, r.from(i));
                    if (!painted && p < from) {
                        emit(row, p, from, mode, baseBits);
                    }
                    int to = Math.min(runFrom, r.to(i));
                    long bits = blocks.toGroups(b, r.lessThan(i, mode)) << shift;
                    if (!painted || bits != baseBits) {
                        emit(row, from, to, mode, bits);
                    }
                    p = to;
                    if (r.to(i) <= runFrom) {
                        i++;
                    }
                } else {
                    if (!painted) {
                        emit(row, p, runFrom, mode, baseBits);
                    }
                    p = runFrom;
                }
            }
        }
    }

    /** Leaves {@code [from, to)} at own cost {@code v} with the one-word candidates {@code bits}. */
    private void emit(byte[] row, int from, int to, int v, long bits) {
        mask[0] = bits;
        current[0] = v;
        out.interval(row, from, to);
    }
}
