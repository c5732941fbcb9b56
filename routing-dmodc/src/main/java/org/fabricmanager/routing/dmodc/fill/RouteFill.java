package org.fabricmanager.routing.dmodc.fill;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.incremental.RouteChanges;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;
import org.fabricmanager.routing.dmodc.reuse.ChunkClasses;
import org.fabricmanager.routing.dmodc.reuse.RowRelatives;
import org.fabricmanager.routing.dmodc.shared.NeighbourBlocks;
import org.fabricmanager.topology.FabricIndex;

/**
 * Formulas (1)-(4) for all switches: the forwarding table row of each switch, one worker per
 * switch at a time.
 *
 * <p>The candidate groups {@code C_{s,λ}} of formula (1) are bit masks over the groups of
 * {@code s}. Over the neighbour rows merged into shared rows, built from the {@link RowProfiles}
 * (each cost row as a mode plus a few segments of other costs), a sweep over the leaves meets only
 * the boundaries of the sets' intervals and of the own row's runs off its mode: in between, every
 * cost involved is constant and so is the mask, and the leaves there are routed as one destination
 * range ({@link BlockSweep}). Every other switch compares whole rows, eight leaves and eight groups
 * at a time ({@link DenseSweep}).
 *
 * <p>Consecutive leaves with the same candidates and adjacent destinations form one run, whose
 * ports {@link Selectors} writes by formulas (3)-(4). Each row is first painted with the ports of
 * its most common candidates, then patched where others hold. The result is entry for entry what
 * formulas (1)-(4) give.
 *
 * <p>This class runs the switches over the routing pool, one {@link RowFiller} per thread (which
 * picks a sweep and owns the thread's scratch), and chooses how each row is made: afresh, as a copy
 * of a relative's row patched where they differ ({@link RowPatcher}), or, in a re-route,
 * reused or patched as {@link RouteChanges} says.
 */
public final class RouteFill {
    private static final int GRAIN = 8;

    private final FillInputs inputs;
    private final int[] rank;
    // The merged neighbour rows, made by computeAll; computeChanged routes without them (null) unless
    // computeAll ran first on this instance.
    private NeighbourBlocks blocks;
    private boolean relativesForAnyLeaf;
    private DmodcShortcuts shortcuts = DmodcShortcuts.ALL;

    public RouteFill(FabricIndex index, int[] rank, CostTable costs, int[] divider, RowProfiles profiles,
              LeafDestinations destinations) {
        this.inputs = FillInputs.of(index, costs, divider, profiles, destinations);
        this.rank = rank;
    }

    /**
     * Makes every leaf above one shared set a candidate relative, however few intervals the set has
     * (tests: small fabrics never have sets busy enough for {@link #computeAll} to look for relatives).
     */
    public RouteFill relativesForAnyLeaf() {
        relativesForAnyLeaf = true;
        return this;
    }

    /** Takes only the {@code shortcuts} given (tests and the shortcut benchmark; the rows are the same). */
    public RouteFill shortcuts(DmodcShortcuts shortcuts) {
        this.shortcuts = shortcuts;
        return this;
    }

    /** All rows, switches in parallel, after merging the shared neighbour rows ({@link NeighbourBlocks}). */
    public byte[][] computeAll(RoutingPool pool) {
        FabricIndex index = inputs.index();
        CostTable costs = inputs.costs();
        int[] divider = inputs.divider();
        // Without shared rows every switch is routed on its own (dense sweep), and no leaf
        // looks for relatives (whose candidates are the leaves above one busy shared set).
        blocks = shortcuts.on(DmodcShortcuts.Shortcut.SHARED_ROWS)
                ? NeighbourBlocks.of(index, rank, costs, inputs.profiles(),
                        shortcuts.on(DmodcShortcuts.Shortcut.INTERVAL_GROUPS) ? inputs.destinations() : null, shortcuts, pool)
                : null;
        FillInputs in = inputs.withBlocks(blocks).withShortcuts(shortcuts);
        int switches = index.switchCount();
        boolean[] candidate = new boolean[switches];
        boolean relativesOn = blocks != null && shortcuts.on(DmodcShortcuts.Shortcut.RELATIVES);
        for (int s = 0; s < switches && relativesOn; s++) {
            candidate[s] = index.leafNumber(s) != FabricIndex.NONE && busy(s);
        }
        RowRelatives relatives = RowRelatives.of(index, costs, divider, inputs.profiles(), candidate, pool);
        byte[][] rows = new byte[switches][];
        RowFiller[] fillers = new RowFiller[pool.threads()];
        pool.forRange(rows.length, GRAIN, (w, from, to) -> {
            RowFiller filler = filler(fillers, w, in);
            for (int s = from; s < to; s++) {
                if (relatives.relativeOf(s) < 0) {
                    rows[s] = filler.row(s);
                    // Its relatives now, while its row is in this core's cache: a copy costs less here
                    // than in a later pass.
                    for (int i = relatives.firstRelative(s); i < relatives.firstRelative(s + 1); i++) {
                        int t = relatives.relative(i);
                        in.shortcuts().hit(DmodcShortcuts.Shortcut.RELATIVES);
                        rows[t] = filler.relative(t, rows[s].clone(), relatives.leaves(t));
                    }
                }
            }
        });
        return rows;
    }

    /**
     * Whether routing {@code s} afresh is likely to cost more than copying a relative's row and recomputing
     * the most chunks {@link RowRelatives} allows: its groups are one shared set (a leaf looking up at its
     * pod) with more intervals than those chunks have leaves. An intact pod's set has a few intervals and
     * its leaves' rows are a paint and their own pod; a degraded pod's has about as many as it has destination
     * leaves.
     */
    private boolean busy(int s) {
        if (!blocks.eligible(s) || blocks.firstBlock(s + 1) - blocks.firstBlock(s) != 1) {
            return false;
        }
        int chunks = (inputs.leaves() + ChunkClasses.CHUNK - 1) / ChunkClasses.CHUNK;
        return relativesForAnyLeaf || blocks.rows(blocks.firstBlock(s)).intervals() > RowRelatives.maxChunks(chunks) * ChunkClasses.CHUNK;
    }

    /** Thread {@code w}'s row filler over {@code in}, made on its first use. */
    private static RowFiller filler(RowFiller[] fillers, int w, FillInputs in) {
        if (fillers[w] == null) {
            fillers[w] = new RowFiller(in);
        }
        return fillers[w];
    }

    /**
     * The rows of a re-route: {@code null} where {@code changes} reuses the previous row, the
     * previous row copied and patched at its dirty leaves and destinations, or a whole new row.
     */
    public byte[][] computeChanged(RoutingPool pool, RouteChanges changes, ForwardingTables previous) {
        FillInputs in = inputs.withBlocks(blocks).withShortcuts(shortcuts);
        int switches = inputs.index().switchCount();
        byte[][] rows = new byte[switches][];
        RowFiller[] fillers = new RowFiller[pool.threads()];
        pool.forRange(rows.length, GRAIN, (w, from, to) -> {
            RowFiller filler = filler(fillers, w, in);
            for (int s = from; s < to; s++) {
                byte kind = changes.kind(s);
                if (kind == RouteChanges.FULL) {
                    rows[s] = filler.row(s);
                } else if (kind == RouteChanges.PATCH) {
                    rows[s] = filler.patch(s, previous.copyRow(changes.previousRow(s)), changes.dirtyLeaves(s),
                            changes.dirtyDestinations());
                }
            }
        });
        return rows;
    }
}
