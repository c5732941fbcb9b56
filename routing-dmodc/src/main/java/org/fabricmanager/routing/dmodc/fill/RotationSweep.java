package org.fabricmanager.routing.dmodc.fill;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;
import org.fabricmanager.routing.dmodc.reuse.RowRelatives;
import org.fabricmanager.routing.dmodc.shared.IntervalGroups;
import org.fabricmanager.routing.dmodc.shared.NeighbourBlocks;
import org.fabricmanager.routing.dmodc.shared.SharedRows;

/**
 * The sweep of a leaf above one shared set: a painted row with {@code Π_s = 1}, one port per group
 * and its groups in one block of {@link NeighbourBlocks}. Candidates stay masks over the set's rows
 * ("positions", those the switch lacks cleared) and every stretch whose candidates differ from the
 * base is written at once by {@link RotationRuns}, without turning masks into group masks or
 * gathering runs. The entries are those of {@link SingleBlockSweep}: formulas (3)-(4) depend on the
 * candidates only, and the positions of a block are its groups in order. It also patches a relative's
 * row ({@link RowRelatives}) at chosen leaves the same way. One per thread, its rotation tables and
 * overlap list reused from switch to switch.
 */
final class RotationSweep {
    private final NeighbourBlocks blocks;
    private final CostTable costs;
    private final LeafDestinations destinations;
    private final int[] groupNeighbour;
    private final int[] groupPortStart;
    private final int[] groupPorts;
    private final int leaves;
    private final RunWriter out;
    private final RotationRuns rotation;
    private final DmodcShortcuts shortcuts;
    private final byte[] positionPorts = new byte[SharedRows.MAX_MEMBERS];
    // Intervals of a set overlapping the own row's runs, listed and flagged.
    private int[] overlap = new int[16];
    private int overlapCount;
    private boolean[] overlapFlag = new boolean[0];

    RotationSweep(FillInputs in, RunWriter out) {
        this.blocks = in.blocks();
        this.costs = in.costs();
        this.destinations = in.destinations();
        this.groupNeighbour = in.index().groupNeighbourArray();
        this.groupPortStart = in.index().groupPortStartArray();
        this.groupPorts = in.index().groupPortArray();
        this.leaves = in.leaves();
        this.out = out;
        this.shortcuts = in.shortcuts();
        this.rotation = new RotationRuns(shortcuts);
    }

    /**
     * Routes block {@code b} into {@code row} at own cost {@code mode} off the first {@code runs}
     * runs of {@code ownRun}.
     *
     * <p>The set's intervals that lie wholly where the own row is at its mode are written group
     * by group ({@link IntervalGroups}): at the set's threshold all intervals of a group have the
     * same candidates, so each sequence is built once for all of them; the order of writing does
     * not matter, as the intervals are disjoint. The intervals overlapping a run of the own row
     * off its mode are written afterwards, in leaf order, split at the run's ends.
     */
    void sweep(byte[] row, int b, int mode, int[] ownRun, int runs) {
        SharedRows r = blocks.rows(b);
        IntervalGroups groups = blocks.intervalGroups(b);
        long has = blocks.has(b);
        beginRotation(b, r, has);
        int count = r.intervals();
        long baseY = r.base(mode) & has;
        // The base paint (BlockSweep leaves it to here): the same ports as the base group mask,
        // whose groups are the positions in order, but from RotationRuns' octet tables, which
        // are kept from leaf to leaf of a pod where Selectors would build them again per leaf.
        rotation.fill(row, 0, row.length, baseY);
        int overlapping = markOverlapping(r, ownRun, runs);
        if (groups != null) {
            shortcuts.hit(DmodcShortcuts.Shortcut.INTERVAL_GROUPS);
            writeGroups(row, r, groups, mode, has, baseY);
        }
        int f = 0;
        int run = 0;
        int i = 0;
        int p = 0;
        while (p < leaves) {
            int runFrom = run < runs ? ownRun[3 * run] : leaves;
            if (runFrom <= p) {
                // Inside a run of the own row off its mode: split at the set's boundaries.
                int runTo = ownRun[3 * run + 1];
                int v = ownRun[3 * run + 2];
                if (v == 0) {
                    p = runTo; // the own leaf: its ports are written last
                } else if (v == CostTable.INFINITE) {
                    for (int leaf = p; leaf < runTo; leaf++) {
                        out.noRoute(row, leaf);
                    }
                    p = runTo;
                }
                i = firstEndingAfter(r, i, p);
                while (p < runTo) {
                    while (i < count && r.to(i) <= p) {
                        i++;
                    }
                    long y;
                    int next;
                    if (i < count && r.from(i) <= p) {
                        y = r.lessThan(i, v) & has;
                        next = Math.min(runTo, r.to(i));
                    } else {
                        y = r.base(v) & has;
                        next = i < count ? Math.min(runTo, r.from(i)) : runTo;
                    }
                    if (y != baseY) {
                        writeLeaves(row, p, next, y);
                    }
                    p = next;
                }
                run++;
                continue;
            }
            // At the mode up to the next run: the intervals wholly here were written by groups
            // (or are written now when there are none); those overlapping a run, only in part.
            if (groups == null) {
                i = firstEndingAfter(r, i, p);
                while (i < count && r.from(i) < runFrom) {
                    long y = r.lessThan(i, mode) & has;
                    if (y != baseY) {
                        writeLeaves(row, Math.max(p, r.from(i)), Math.min(runFrom, r.to(i)), y);
                    }
                    if (r.to(i) > runFrom) {
                        break;
                    }
                    i++;
                }
            } else {
                while (f < overlapping && r.to(overlap[f]) <= p) {
                    f++;
                }
                while (f < overlapping && r.from(overlap[f]) < runFrom) {
                    int k = overlap[f];
                    long y = r.lessThan(k, mode) & has;
                    if (y != baseY) {
                        writeLeaves(row, Math.max(p, r.from(k)), Math.min(runFrom, r.to(k)), y);
                    }
                    if (r.to(k) > runFrom) {
                        break;
                    }
                    f++;
                }
            }
            p = runFrom;
        }
    }

    /**
     * Recomputes, in a copy of a relative's row, the destinations of the leaves in {@code leaves}
     * (bits) of switch {@code s}: each leaf's candidates from the set of its one block, written with
     * {@link RotationRuns} as {@link #sweep} does.
     */
    byte[] relative(int s, byte[] row, long[] leaves) {
        int ownLeaf = out.ownLeaf();
        int b = blocks.firstBlock(s);
        SharedRows r = blocks.rows(b);
        long has = blocks.has(b);
        beginRotation(b, r, has);
        byte[] c = costs.array();
        int at = s * this.leaves;
        int count = r.intervals();
        int i = 0;
        for (int word = 0; word < leaves.length; word++) {
            for (long bits = leaves[word]; bits != 0; bits &= bits - 1) {
                int leaf = (word << 6) + Long.numberOfTrailingZeros(bits);
                int v = c[at + leaf];
                if (leaf == ownLeaf) {
                    out.ownLeafPorts(row);
                    continue;
                }
                if (v == CostTable.INFINITE) {
                    out.noRoute(row, leaf);
                    continue;
                }
                while (i < count && r.to(i) <= leaf) {
                    i++;
                }
                long y = (i < count && r.from(i) <= leaf ? r.lessThan(i, v) : r.base(v)) & has;
                if (destinations.contiguous(leaf)) {
                    int d0 = destinations.first(leaf);
                    rotation.fill(row, d0, d0 + destinations.count(leaf), y);
                } else {
                    for (int e = destinations.start(leaf); e < destinations.start(leaf + 1); e++) {
                        int d = destinations.destination(e);
                        rotation.fill(row, d, d + 1, y);
                    }
                }
            }
        }
        return row;
    }

    /**
     * Starts {@link RotationRuns} on block {@code b} of set {@code r}: each of the set's positions the block has
     * ({@code has}) written with its group's port.
     */
    private void beginRotation(int b, SharedRows r, long has) {
        int first = out.g0() + blocks.groupFrom(b);
        for (int g = first; g < first + blocks.groupCount(b); g++) {
            positionPorts[r.position(groupNeighbour[g])] = (byte) groupPorts[groupPortStart[g]];
        }
        rotation.begin(has, positionPorts);
    }

    /**
     * The set's intervals overlapping one of the first {@code runs} runs of {@code ownRun}, ascending,
     * into {@link #overlap} (each once), flagged in {@link #overlapFlag}; returns their number.
     */
    private int markOverlapping(SharedRows r, int[] ownRun, int runs) {
        if (overlapFlag.length < r.intervals()) {
            overlapFlag = new boolean[Math.max(r.intervals(), 2 * overlapFlag.length)];
        }
        for (int f = 0; f < overlapCount; f++) {
            overlapFlag[overlap[f]] = false;
        }
        int n = 0;
        int i = 0;
        for (int run = 0; run < runs; run++) {
            int from = ownRun[3 * run];
            int to = ownRun[3 * run + 1];
            for (i = firstEndingAfter(r, i, from); i < r.intervals() && r.from(i) < to; i++) {
                if (!overlapFlag[i]) {
                    overlapFlag[i] = true;
                    if (n == overlap.length) {
                        overlap = Arrays.copyOf(overlap, 2 * n);
                    }
                    overlap[n++] = i;
                }
            }
            // the last interval looked at may reach into the next run too
            i = Math.max(0, i - 1);
        }
        overlapCount = n;
        return n;
    }

    /**
     * The intervals not overlapping a run of the own row, each group's sequence built once when
     * the own mode is the set's threshold (the masks the groups are made of), interval by
     * interval otherwise.
     */
    private void writeGroups(byte[] row, SharedRows r, IntervalGroups groups, int mode, long has, long baseY) {
        boolean atThreshold = mode == r.threshold();
        for (int g = 0; g < groups.count(); g++) {
            long y = groups.mask(g) & has;
            if (atThreshold) {
                if (y == baseY) {
                    continue;
                }
                rotation.prepare(y);
            }
            for (int k = groups.start(g); k < groups.start(g + 1); k++) {
                int i = groups.interval(k);
                if (overlapFlag[i]) {
                    continue;
                }
                if (!atThreshold) {
                    y = r.lessThan(i, mode) & has;
                    if (y == baseY) {
                        continue;
                    }
                }
                int d0 = groups.destinationFrom(i);
                if (d0 < 0) {
                    writeLeaves(row, r.from(i), r.to(i), y);
                } else if (atThreshold) {
                    rotation.write(row, d0, groups.destinationTo(i));
                } else {
                    rotation.fill(row, d0, groups.destinationTo(i), y);
                }
            }
        }
    }

    /** The first interval from {@code i} on that ends after leaf {@code p} (intervals are sorted and disjoint). */
    private static int firstEndingAfter(SharedRows r, int i, int p) {
        int lo = i;
        int hi = r.intervals();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (r.to(mid) <= p) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The destinations of leaves {@code [from, to)} with the candidate positions {@code y}. */
    private void writeLeaves(byte[] row, int from, int to, long y) {
        int leaf = from;
        while (leaf < to) {
            if (!destinations.contiguous(leaf)) {
                for (int e = destinations.start(leaf); e < destinations.start(leaf + 1); e++) {
                    int d = destinations.destination(e);
                    rotation.fill(row, d, d + 1, y);
                }
                leaf++;
                continue;
            }
            int last = Math.min(destinations.chainEnd(leaf), to - 1);
            rotation.fill(row, destinations.first(leaf), destinations.first(last) + destinations.count(last), y);
            leaf = last + 1;
        }
    }
}
