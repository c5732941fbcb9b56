package org.fabricmanager.routing.dmodc.fill;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;
import org.fabricmanager.routing.dmodc.shared.SharedRows;

/**
 * The runs of a switch's own cost row off its mode, as (from, to, cost) triples in leaf order, for
 * the sweeps over shared rows ({@link BlockSweep}). Runs at infinite own cost are taken out and left
 * to the {@link RunWriter}, which sets their destinations to no route after the row's last run: the
 * sweeps then treat those leaves as at the mode, whatever candidates they write there is
 * overwritten, and a set's interval that {@link SharedRows} merged over leaves no asker reaches is
 * not split there again. One per thread, its array reused (and grown) from switch to switch.
 */
final class OwnRuns {
    private final CostTable costs;
    private final LeafDestinations destinations;
    private final int leaves;
    private final RunWriter out;
    private int[] ownRun = new int[48];
    private final DmodcShortcuts shortcuts;
    /** Whether runs at infinite own cost are left to the writer ({@link DmodcShortcuts.Shortcut#UNREACHABLE_LAST}). */
    private final boolean deferOn;

    OwnRuns(FillInputs in, RunWriter out) {
        this.costs = in.costs();
        this.destinations = in.destinations();
        this.leaves = in.leaves();
        this.out = out;
        this.shortcuts = in.shortcuts();
        this.deferOn = shortcuts.on(DmodcShortcuts.Shortcut.UNREACHABLE_LAST);
    }

    /** The runs found last, as triples; read after finding them, which may grow the array. */
    int[] array() {
        return ownRun;
    }

    /** The reachable runs of the row of {@code s} off {@code mode}, from its costs (a row without a profile); returns their number. */
    int fromCosts(int s, int mode) {
        int found = ownRuns(s, mode); // may grow ownRun: read it after
        // Without the shortcut the runs at infinite own cost stay, and the sweeps write them as no route.
        return deferOn ? deferUnreachable(ownRun, found) : found;
    }

    /**
     * The reachable runs of a row's profile {@code segments}: the runs at infinite own cost are not
     * noted one by one but set to no route by {@link RunWriter#finish} straight from the segments,
     * which stay as they are (a degraded fabric's level-2 and top rows have many such runs, one
     * unreachable leaf apiece: the leaves of their plane that lost their uplink). Returns the number of
     * runs kept.
     */
    int fromSegments(int[] segments) {
        if (ownRun.length < segments.length) {
            ownRun = new int[segments.length];
        }
        int kept = 0;
        for (int g = 0; g < segments.length; g += 3) {
            if (segments[g + 2] != CostTable.INFINITE || !deferOn) {
                ownRun[3 * kept] = segments[g];
                ownRun[3 * kept + 1] = segments[g + 1];
                ownRun[3 * kept + 2] = segments[g + 2];
                kept++;
            }
        }
        if (kept != segments.length / 3) {
            shortcuts.hit(DmodcShortcuts.Shortcut.UNREACHABLE_LAST);
            out.unreachableSegments(segments);
        } else {
            out.unreachableSegments(null);
        }
        return kept;
    }

    /**
     * Copies the first {@code runs} runs (triples) of {@code source} ({@link #ownRun} itself) into
     * {@link #ownRun} but those at infinite own cost, keeping their order, and notes the destinations
     * of those for no route after the row's last run. Returns the number of runs kept.
     */
    private int deferUnreachable(int[] source, int runs) {
        if (ownRun.length < 3 * runs) {
            ownRun = new int[3 * runs];
        }
        int kept = 0;
        for (int run = 0; run < runs; run++) {
            int from = source[3 * run];
            int to = source[3 * run + 1];
            int v = source[3 * run + 2];
            if (v != CostTable.INFINITE) {
                ownRun[3 * kept] = from;
                ownRun[3 * kept + 1] = to;
                ownRun[3 * kept + 2] = v;
                kept++;
                continue;
            }
            int leaf = from;
            while (leaf < to) {
                if (!destinations.contiguous(leaf)) {
                    for (int e = destinations.start(leaf); e < destinations.start(leaf + 1); e++) {
                        out.deferNoRoute(destinations.destination(e), destinations.destination(e) + 1);
                    }
                    leaf++;
                    continue;
                }
                int last = Math.min(destinations.chainEnd(leaf), to - 1);
                out.deferNoRoute(destinations.first(leaf), destinations.first(last) + destinations.count(last));
                leaf = last + 1;
            }
        }
        return kept;
    }

    /**
     * The runs of the row of {@code s} off {@code mode} into {@link #ownRun} as triples
     * (from, to, cost), from its costs; returns their number.
     */
    private int ownRuns(int s, int mode) {
        byte[] c = costs.array();
        int at = s * leaves;
        int n = 0;
        int l = 0;
        while (l < leaves) {
            int v = c[at + l];
            if (v == mode) {
                l++;
                continue;
            }
            int start = l;
            while (l < leaves && c[at + l] == v) {
                l++;
            }
            if (3 * n + 3 > ownRun.length) {
                ownRun = Arrays.copyOf(ownRun, ownRun.length * 2);
            }
            ownRun[3 * n] = start;
            ownRun[3 * n + 1] = l;
            ownRun[3 * n + 2] = v;
            n++;
        }
        return n;
    }
}
