package org.fabricmanager.routing.dmodc.fill;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;
import org.fabricmanager.routing.dmodc.shared.NeighbourBlocks;
import org.fabricmanager.routing.dmodc.shared.SharedRows;

/**
 * The sweep of a switch whose neighbours' rows are merged into shared rows ({@link NeighbourBlocks}):
 * formulas (1)-(4) from the shared rows of its blocks and the runs of its own row off its mode
 * ({@link OwnRuns}). The leaves split at every boundary of either, and only stretches where a
 * block's rows or the own cost are off their modes are looked at (the rest is the painted base). A
 * block's mask over its set's rows is turned into one over its groups and placed at its first group.
 * A switch with one block goes to {@link RotationSweep} or {@link SingleBlockSweep}. One per thread,
 * its per-block cursors reused from switch to switch.
 */
final class BlockSweep {
    private final NeighbourBlocks blocks;
    private final RowProfiles profiles;
    private final int leaves;
    private final RunWriter out;
    private final long[] mask;
    private final long[] base;
    private final int[] current;
    private final OwnRuns ownRuns;
    private final SingleBlockSweep singleBlock;
    private final RotationSweep rotationSweep;
    private final DmodcShortcuts shortcuts;
    private final boolean rotationOn;
    private final boolean busyStretchesOn;
    // Per block: the next interval of its set (cursor) and the one the sweep is in, or -1 (state).
    private final int[] cursor = new int[NeighbourBlocks.MAX_BLOCKS];
    private final int[] state = new int[NeighbourBlocks.MAX_BLOCKS];
    // Each block's groups at its set's base for the own row's mode.
    private final long[] modeGroups = new long[NeighbourBlocks.MAX_BLOCKS];

    BlockSweep(FillInputs in, RunWriter out, OwnRuns ownRuns, SingleBlockSweep singleBlock,
               RotationSweep rotationSweep) {
        this.blocks = in.blocks();
        this.profiles = in.profiles();
        this.leaves = in.leaves();
        this.out = out;
        this.mask = out.mask();
        this.base = out.base();
        this.current = out.current();
        this.ownRuns = ownRuns;
        this.singleBlock = singleBlock;
        this.rotationSweep = rotationSweep;
        this.shortcuts = in.shortcuts();
        this.rotationOn = shortcuts.on(DmodcShortcuts.Shortcut.ROTATION);
        this.busyStretchesOn = shortcuts.on(DmodcShortcuts.Shortcut.BUSY_STRETCHES);
    }

    /** Routes switch {@code s} into {@code row}. */
    void sweep(byte[] row, int s) {
        int w = out.w();
        int pi = out.pi();
        int b0 = blocks.firstBlock(s);
        int nb = blocks.firstBlock(s + 1) - b0;
        int mode = profiles.mode(s);
        int[] segments = profiles.segments(s);
        int runs = segments != null ? ownRuns.fromSegments(segments) : ownRuns.fromCosts(s, mode);
        int[] ownRun = ownRuns.array();
        // Base: every row at its mode.
        Arrays.fill(mask, 0, w, 0L);
        for (int b = 0; b < nb; b++) {
            place(b0 + b, blocks.rows(b0 + b).base(mode));
        }
        current[0] = mode;
        boolean rotation = rotationOn && nb == 1 && pi == 1 && w == 1 && out.singlePorts();
        if (out.anyCandidate() && mode != CostTable.INFINITE && mode != 0) {
            out.paintBase(row, !rotation);
        }
        boolean painted = out.painted();
        if (nb == 1) {
            if (painted && rotation) {
                shortcuts.hit(DmodcShortcuts.Shortcut.ROTATION);
                rotationSweep.sweep(row, b0, mode, ownRun, runs);
            } else {
                singleBlock.sweep(row, b0, mode, ownRun, runs);
            }
            return;
        }
        for (int b = 0; b < nb; b++) {
            cursor[b] = 0;
            // A block at its set's base where the own row is at its mode (a level-2 switch's
            // down block towards other pods) gives the same groups at every stretch: turned
            // into groups once rather than per stretch.
            modeGroups[b] = blocks.toGroups(b0 + b, blocks.rows(b0 + b).base(mode));
        }
        // The block whose set has the most intervals (a level-2 switch's up block: its plane's top
        // switches, whose lost links split destination pods off the base).
        int busy = 0;
        for (int b = 1; b < nb; b++) {
            if (blocks.rows(b0 + b).intervals() > blocks.rows(b0 + busy).intervals()) {
                busy = b;
            }
        }
        boolean fast = busyStretchesOn && painted && w == 1;
        int run = 0;
        int p = 0;
        while (p < leaves) {
            while (run < runs && ownRun[3 * run + 1] <= p) {
                run++;
            }
            int v;
            int next;
            if (run < runs && ownRun[3 * run] <= p) {
                v = ownRun[3 * run + 2];
                next = ownRun[3 * run + 1];
            } else {
                v = mode;
                next = run < runs ? ownRun[3 * run] : leaves;
            }
            boolean atBase = true;
            for (int b = 0; b < nb; b++) {
                SharedRows r = blocks.rows(b0 + b);
                int i = cursor[b];
                while (i < r.intervals() && r.to(i) <= p) {
                    i++;
                }
                cursor[b] = i;
                if (i < r.intervals() && r.from(i) <= p) {
                    state[b] = i;
                    next = Math.min(next, r.to(i));
                    atBase = false;
                } else {
                    state[b] = -1;
                    if (i < r.intervals()) {
                        next = Math.min(next, r.from(i));
                    }
                }
            }
            if (fast && v == mode && othersAtBase(nb, busy)) {
                shortcuts.hit(DmodcShortcuts.Shortcut.BUSY_STRETCHES);
                p = busyStretches(row, b0, nb, busy, p, ownLimit(ownRun, run, runs), mode);
                continue;
            }
            if (v == CostTable.INFINITE) {
                // No route whatever the candidates: skip merging the sets' rows.
                current[0] = v;
                out.interval(row, p, next);
            } else if (!(atBase && v == mode && painted)) {
                Arrays.fill(mask, 0, w, 0L);
                for (int b = 0; b < nb; b++) {
                    SharedRows r = blocks.rows(b0 + b);
                    if (state[b] < 0 && v == mode) {
                        placeGroups(b0 + b, modeGroups[b]);
                    } else {
                        place(b0 + b, state[b] < 0 ? r.base(v) : r.lessThan(state[b], v));
                    }
                }
                current[0] = v;
                out.interval(row, p, next);
            }
            p = next;
        }
    }

    /** Whether every block but {@code busy} is outside its set's intervals at the sweep's position. */
    private boolean othersAtBase(int nb, int busy) {
        for (int b = 0; b < nb; b++) {
            if (b != busy && state[b] >= 0) {
                return false;
            }
        }
        return true;
    }

    /** Where the own row next leaves its mode: the start of the next run, or the end of the row. */
    private int ownLimit(int[] ownRun, int run, int runs) {
        return run < runs ? ownRun[3 * run] : leaves;
    }

    /**
     * {@link #sweep} from leaf {@code p} while the own row is at its mode and every block but
     * {@code busy} at its set's base: only the busy block's intervals can differ from the painted base,
     * so they are walked alone (each a lookup and a comparison with the base, as in
     * {@link SingleBlockSweep}) instead of stepping every block's cursor at every stretch. Stops where
     * the own row leaves its mode or another block's next interval starts; returns that leaf. The
     * stretches, their candidates and their order are those of the general loop. One-word masks.
     */
    private int busyStretches(byte[] row, int b0, int nb, int busy, int p, int limit, int mode) {
        long others = 0;
        for (int b = 0; b < nb; b++) {
            if (b == busy) {
                continue;
            }
            others |= modeGroups[b] << blocks.groupFrom(b0 + b);
            SharedRows r = blocks.rows(b0 + b);
            if (cursor[b] < r.intervals()) {
                limit = Math.min(limit, r.from(cursor[b]));
            }
        }
        SharedRows r = blocks.rows(b0 + busy);
        int count = r.intervals();
        int shift = blocks.groupFrom(b0 + busy);
        long baseBits = base[0];
        int i = cursor[busy];
        while (p < limit) {
            if (i < count && r.from(i) <= p) {
                int to = Math.min(limit, r.to(i));
                long bits = others | blocks.toGroups(b0 + busy, r.lessThan(i, mode)) << shift;
                if (bits != baseBits) {
                    out.write(row, p, to, bits);
                }
                p = to;
                if (r.to(i) <= p) {
                    i++;
                }
            } else {
                p = i < count ? Math.min(limit, r.from(i)) : limit;
            }
        }
        cursor[busy] = i;
        return p;
    }

    /** ORs block {@code b}'s mask (over its set's rows) into the writer's mask at its groups. */
    private void place(int b, long rowsMask) {
        placeGroups(b, blocks.toGroups(b, rowsMask));
    }

    /** ORs block {@code b}'s mask over its groups into the writer's mask at its first group. */
    private void placeGroups(int b, long bits) {
        if (bits == 0) {
            return;
        }
        int at = blocks.groupFrom(b);
        int word = at >>> 6;
        int shift = at & 63;
        mask[word] |= bits << shift;
        if (shift != 0 && word + 1 < out.w()) {
            mask[word + 1] |= bits >>> (64 - shift);
        }
    }
}
