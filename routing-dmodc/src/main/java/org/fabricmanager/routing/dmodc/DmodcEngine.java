package org.fabricmanager.routing.dmodc;

import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.fabricmanager.routing.FabricShapes;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseClock;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.TableChurn;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.routing.dmodc.fill.RouteFill;
import org.fabricmanager.routing.dmodc.incremental.RouteChanges;
import org.fabricmanager.routing.dmodc.preprocess.CostDivider;
import org.fabricmanager.routing.dmodc.preprocess.CostDividerUpdate;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;
import org.fabricmanager.routing.dmodc.preprocess.Neighbours;
import org.fabricmanager.routing.dmodc.preprocess.Ranks;
import org.fabricmanager.routing.dmodc.repair.ChurnCount;
import org.fabricmanager.routing.dmodc.repair.CostChanges;
import org.fabricmanager.routing.dmodc.repair.RefinedRepair;
import org.fabricmanager.routing.dmodc.repair.ReturnOverlay;
import org.fabricmanager.routing.dmodc.repair.TableMix;
import org.fabricmanager.routing.dmodc.repair.TableRepair;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dmodc (Gliksberg et al., "High-Quality Fault Resiliency in Fat-Trees", section 3) with the
 * reproducibility conventions of {@code shared/spec/FORMATS.md}: ranking by BFS from the leaves,
 * port groups by neighbour GUID, costs and dividers by Procedure 1, routes by formulas (1)-(4).
 * Works on any fabric, intact or degraded; leaf pairs without an up*&#47;down* path are reported in
 * the {@link Validity} and their entries stay {@link ForwardingTables#NO_ROUTE}.
 *
 * <p>The engine owns a {@link RoutingPool}: preprocessing runs one barrier per rank going up, then
 * down; routes run switch by switch in parallel. Tables do not depend on the number of threads.
 * Phases: {@code ranking}, {@code groups}, {@code cost+divider}, {@code routes}, {@code validity}.
 *
 * <p>{@link #reroute} routes a later snapshot from the previous {@link DmodcRouting}, recomputing
 * only the table entries the change can affect.
 */
public final class DmodcEngine implements RoutingEngine, TableRepairer {
    /** The engine's name. */
    public static final String NAME = "dmodc";

    private static final Logger LOG = LoggerFactory.getLogger(DmodcEngine.class);
    private final RoutingPool pool;
    private final boolean relativesForAnyLeaf;
    private final DmodcShortcuts shortcuts;
    /** The pass applied to the full routings that repairs give back ({@code null}: Dmodc's own), and its engine. */
    private final DmodcRefinement refinement;
    private final String repairName;

    /** An engine with {@code threads} workers (the calling thread included). */
    public DmodcEngine(int threads) {
        this(threads, false);
    }

    /** The same; tests force {@link RouteFill#relativesForAnyLeaf} on fabrics too small to look for relatives. */
    DmodcEngine(int threads, boolean relativesForAnyLeaf) {
        this(threads, relativesForAnyLeaf, DmodcShortcuts.ALL);
    }

    /** The same, taking only the {@code shortcuts} given (tests and the shortcut benchmark; the tables are the same). */
    DmodcEngine(int threads, boolean relativesForAnyLeaf, DmodcShortcuts shortcuts) {
        this(threads, relativesForAnyLeaf, shortcuts, NAME, null);
    }

    /**
     * An engine of {@code threads} workers for engine {@code engine}, which refines every full routing of Dmodc with
     * {@code refinement}: it routes ({@link #compute}) as Dmodc, and repairs as Dmodc, but an element that comes back
     * takes back the routes of the refined full routing, and a whole fabric gets it whole (on an intact PGFT a
     * refinement keeps Dmodc's tables, so there Dmodc's); its repairs are named {@code engine}.
     */
    public DmodcEngine(int threads, String engine, DmodcRefinement refinement) {
        this(threads, false, DmodcShortcuts.ALL, engine, refinement);
    }

    private DmodcEngine(int threads, boolean relativesForAnyLeaf, DmodcShortcuts shortcuts, String repairName,
                        DmodcRefinement refinement) {
        this.pool = new RoutingPool(threads, NAME);
        this.relativesForAnyLeaf = relativesForAnyLeaf;
        this.shortcuts = shortcuts;
        this.repairName = repairName;
        this.refinement = refinement;
    }

    /** An engine with one worker per available processor. */
    public DmodcEngine() {
        this(Runtime.getRuntime().availableProcessors());
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Up and down a fat tree: on a 2-D fat tree its tables leave leaf pairs unrouted. */
    @Override
    public FabricShapes shapes() {
        return FabricShapes.PGFT;
    }

    /** Number of worker threads. */
    public int threads() {
        return pool.threads();
    }

    @Override
    public RoutingResult route(FabricIndex fabric) {
        return compute(fabric).result();
    }

    @Override
    public DmodcRouting routeSnapshot(FabricIndex fabric) {
        return compute(fabric);
    }

    /** Routes {@code fabric} and keeps the preprocessing, for alternative ports and diagnostics. */
    public DmodcRouting compute(FabricIndex fabric) {
        Preprocessing pre = preprocess(fabric);
        RouteFill fill = new RouteFill(fabric, pre.ranks.array(), pre.cd.costs(), pre.cd.dividers(), pre.cd.profiles(),
                pre.destinations).shortcuts(shortcuts);
        byte[][] rows = (relativesForAnyLeaf ? fill.relativesForAnyLeaf() : fill).computeAll(pool);
        ForwardingTables tables = ForwardingTables.ofRows(DmodcRouting.guids(fabric), rows, fabric.destinationCount());
        pre.clock.lap("routes");
        return finish(fabric, pre, tables, null, NAME);
    }

    /**
     * Routes {@code next} from the Dmodc routing of an earlier snapshot: the preprocessing is done
     * again (it is a small part of the work), then only the rows and entries whose inputs changed
     * are computed ({@link RouteChanges}); the other rows are the previous ones, shared. The tables
     * and validity are exactly those of {@link #compute}{@code (next)} (from a {@link #repair}, a routing from
     * scratch). Phases: {@code ranking},
     * {@code groups}, {@code cost+divider}, {@code changes}, {@code routes}, {@code validity}. A
     * previous routing of another engine gives a routing from scratch.
     */
    @Override
    public DmodcRouting reroute(FabricIndex next, RoutedSnapshot previous) {
        if (!(previous instanceof DmodcRouting before) || !before.dmodcTables()
                || !shortcuts.on(DmodcShortcuts.Shortcut.INCREMENTAL)) {
            // a repair's or a refinement's tables are not Dmodc's own: nothing of them can be reused for Dmodc's
            return compute(next);
        }
        shortcuts.hit(DmodcShortcuts.Shortcut.INCREMENTAL);
        Preprocessing pre = preprocess(next, sameLeaves(before.index(), next) ? before : null);
        RouteChanges changes = RouteChanges.between(before.preprocessed(), next, pre.cd.costs(), pre.cd.dividers(), pre.cd.changed(),
                pool);
        pre.clock.lap("changes");
        RouteFill fill = new RouteFill(next, pre.ranks.array(), pre.cd.costs(), pre.cd.dividers(), pre.cd.profiles(), pre.destinations)
                .shortcuts(shortcuts);
        ForwardingTables tables;
        if (changes.everything()) {
            tables = ForwardingTables.ofRows(DmodcRouting.guids(next), fill.computeAll(pool), next.destinationCount());
        } else {
            byte[][] rows = fill.computeChanged(pool, changes, before.result().tables());
            int[] reuse = new int[rows.length];
            for (int s = 0; s < reuse.length; s++) {
                reuse[s] = changes.kind(s) == RouteChanges.REUSE ? changes.previousRow(s) : -1;
            }
            tables = ForwardingTables.ofRows(DmodcRouting.guids(next), rows, next.destinationCount(),
                    before.result().tables(), reuse);
        }
        pre.clock.lap("routes");
        return finish(next, pre, tables, changes, NAME);
    }

    /**
     * Repairs the tables of {@code base} for {@code next}, a later snapshot of its fabric ({@link TableRepair}):
     * only the entries whose route crosses a failed element, or that lose or gain every path, change, to
     * Dmodc's closed form over their surviving candidates; the others stay. An element that came back (a link
     * between switches over which the tables route nothing) takes back every route the full routing of {@code next}
     * (Dmodc's, or its refinement's) sends over it ({@link ReturnOverlay}), and on a whole fabric (all of its expected
     * PGFT, whatever its GUIDs) the result is Dmodc's routing of it. Valid and deadlock-free as Dmodc's own tables, with Dmodc's validity; repairing for
     * {@code base}'s own fabric gives its tables back. When {@code base} is a Dmodc routing only the entries whose
     * inputs changed are checked (its costs updated, or compared with the new ones when the leaves differ); otherwise
     * every entry is. Phases: {@code ranking}, {@code groups}, {@code cost+divider}, {@code repair}, then
     * {@code returns} when something may have come back (the tables searched for returned links, or a whole fabric's
     * full routing taken) and {@code balance} after a return checked against the full routing ({@code same fabric}
     * instead when {@code next} is {@code base}'s own whole fabric, whose tables are its full routing already),
     * {@code validity}.
     */
    @Override
    public DmodcRouting repair(RoutedSnapshot base, FabricIndex next) {
        return repair(base, null, next);
    }

    /**
     * As {@link #repair(RoutedSnapshot, FabricIndex)}, an entry {@code base} routes over something lost keeping its
     * port in {@code inForce} where that port still leads closer ({@link TableRepair}).
     */
    @Override
    public DmodcRouting repair(RoutedSnapshot base, ForwardingTables inForce, FabricIndex next) {
        if (!(base instanceof DmodcRouting before)) {
            return repairWith(preprocess(next), next, base.result().tables(), null, base.fabric(), inForce);
        }
        if (sameLeaves(before.index(), next)) {
            Preprocessing pre = preprocess(next, before);
            return repairWith(pre, next, base.result().tables(),
                    new TableRepair.Changes(before.index(), pre.cd.changed()), before.index(), inForce);
        }
        // a leaf switch left or came: the cost columns differ, compared leaf by leaf (by GUID)
        Preprocessing pre = preprocess(next);
        long[][] changed = CostChanges.between(before.index(), before.costs(), next, pre.cd.costs(), pool);
        return repairWith(pre, next, base.result().tables(), new TableRepair.Changes(before.index(), changed),
                before.index(), inForce);
    }

    /**
     * Repairs {@code previous}, tables in force of unknown origin (read from a file), for {@code next}:
     * as {@link #repair(RoutedSnapshot, FabricIndex)}, every entry checked. For tables that were valid
     * for an earlier snapshot, the same tables as a repair from a routing of that snapshot.
     */
    public DmodcRouting repair(ForwardingTables previous, FabricIndex next) {
        return repair(previous, null, next);
    }

    /**
     * As {@link #repair(ForwardingTables, FabricIndex)}, the tables known to be valid for {@code before}
     * ({@code null}: unknown): when {@code next} has no link {@code before} lacks, nothing came back, and the tables
     * are not searched for returned links.
     */
    @Override
    public DmodcRouting repair(ForwardingTables previous, FabricIndex before, FabricIndex next) {
        return repairWith(preprocess(next), next, previous, null, before, null);
    }

    @Override
    public boolean refines() {
        return refinement != null;
    }

    /**
     * The repair's changed entries to the refined full routing's ports ({@link RefinedRepair}). Phases: the
     * preprocessing again, {@code refine} (the full routing and the mix), {@code validity}.
     */
    @Override
    public Optional<RoutedSnapshot> refine(ForwardingTables base, RoutedSnapshot repaired, BooleanSupplier abandon) {
        if (refinement == null || !(repaired instanceof DmodcRouting r) || Returns.whole(r.index())) {
            return Optional.empty();
        }
        return pool.abandoning(abandon, () -> {
            FabricIndex next = r.index();
            Preprocessing pre = preprocess(next);
            TableMix.Result mixed = RefinedRepair.mix(next, base, r.result().tables(), fullTables(next, pre, false),
                    pool);
            pre.clock.lap("refine");
            return Optional.of(finish(next, pre, mixed.tables(), null, repairName).repaired(r.fromFull()));
        });
    }

    @Override
    public Optional<TableRepairer> repairer() {
        return Optional.of(this);
    }

    @Override
    public TableChurn churn(ForwardingTables before, RoutedSnapshot after, RoutingPool churnPool) {
        if (!(after instanceof DmodcRouting d)) {
            return null;
        }
        return ChurnCount.between(before, d.result().tables(), d.index(), d.costs(), churnPool);
    }

    /**
     * The repair of {@code previous} (valid for {@code before}, {@code null}: unknown) for {@code next}, then what
     * elements that came back take back ({@link Returns}).
     */
    private DmodcRouting repairWith(Preprocessing pre, FabricIndex next, ForwardingTables previous,
                                    TableRepair.Changes changes, FabricIndex before, ForwardingTables inForce) {
        ForwardingTables repaired = TableRepair.repair(next, pre.cd.costs(), pre.cd.dividers(), previous, changes,
                inForce, pool);
        pre.clock.lap("repair");
        TableMix.Result result = switch (Returns.of(before, next, changes != null)) {
            case SAME_FABRIC -> {
                pre.clock.lap("same fabric");
                yield new TableMix.Result(repaired, 0);
            }
            case WHOLE -> {
                TableMix.Result whole = ReturnOverlay.whole(repaired, fullTables(next, pre, true), pool);
                pre.clock.lap("returns");
                yield whole;
            }
            case SEARCH -> Returns.takeBack(next, pre.cd.costs(), previous, repaired, () -> fullTables(next, pre, false),
                    pre.clock, pool);
            case NONE -> new TableMix.Result(repaired, 0);
        };
        return finish(next, pre, result.tables(), null, repairName).repaired(result.taken());
    }

    /** This engine's refinement of {@code routing} ({@link #compute}'s), on its workers: the rows it rewrites. */
    public byte[][] refine(DmodcRouting routing) {
        return refinement.rows(routing, pool);
    }

    /**
     * The full routing of {@code next} that returns take routes back from: Dmodc's, refined when this engine has a
     * refinement, except on a {@code whole} fabric (an intact PGFT), where a refinement keeps Dmodc's tables.
     */
    private ForwardingTables fullTables(FabricIndex next, Preprocessing pre, boolean whole) {
        byte[][] rows = new RouteFill(next, pre.ranks.array(), pre.cd.costs(), pre.cd.dividers(), pre.cd.profiles(),
                pre.destinations).shortcuts(shortcuts).computeAll(pool);
        ForwardingTables dmodc = ForwardingTables.ofRows(DmodcRouting.guids(next), rows, next.destinationCount());
        if (refinement == null || whole) {
            return dmodc;
        }
        DmodcRouting routing = new DmodcRouting(next, new RoutingResult(NAME, dmodc, null, new PhaseTimings(List.of())),
                pre.ranks.array(), pre.cd.costs(), pre.cd.dividers(), pre.cd.profiles(), null);
        return routing.refined(repairName, refinement.rows(routing, pool), "refinement", 0).tables();
    }

    @Override
    public boolean reroutesIncrementally() {
        return true;
    }

    /** Ranking, groups, costs and dividers, with their timings. */
    private Preprocessing preprocess(FabricIndex fabric) {
        return preprocess(fabric, null);
    }

    /**
     * The same, the costs updated from {@code previous} (a routing of a fabric with the same
     * leaves) when there is one.
     */
    private Preprocessing preprocess(FabricIndex fabric, DmodcRouting previous) {
        PhaseClock clock = new PhaseClock();
        Ranks ranks = Ranks.of(fabric);
        clock.lap("ranking");

        Neighbours neighbours = Neighbours.of(fabric, ranks);
        LeafDestinations destinations = LeafDestinations.of(fabric);
        clock.lap("groups");

        CostDivider.Result cd = previous == null ? CostDivider.compute(fabric, ranks, neighbours, pool, shortcuts)
                : CostDividerUpdate.update(fabric, ranks, neighbours, pool, previous.preprocessed());
        clock.lap("cost+divider");
        return new Preprocessing(clock, ranks, destinations, cd);
    }

    private DmodcRouting finish(FabricIndex fabric, Preprocessing pre, ForwardingTables tables, RouteChanges changes,
                                String engine) {
        Validity validity = LeafValidity.check(fabric, pre.cd.costs(), pool);
        pre.clock.lap("validity");
        if (LOG.isDebugEnabled()) {
            String how = "";
            if (changes != null) {
                int[] counts = changes.counts();
                how = changes.everything() ? ", re-routed from scratch (destination count changed)"
                        : ", re-routed: " + counts[RouteChanges.REUSE] + " rows reused, " + counts[RouteChanges.PATCH]
                        + " patched, " + counts[RouteChanges.FULL] + " recomputed";
            }
            LOG.debug("dmodc routed {} switches x {} destinations in {} ms on {} threads ({} unreachable leaf pairs{})",
                    fabric.switchCount(), fabric.destinationCount(), pre.clock.elapsedNanos() / 1_000_000, pool.threads(),
                    validity.unreachablePairs(), how);
        }
        RoutingResult result = new RoutingResult(engine, tables, validity, pre.clock.timings());
        DmodcRouting.RowCounts rowCounts = null;
        if (changes != null) {
            int[] counts = changes.counts();
            rowCounts = new DmodcRouting.RowCounts(counts[RouteChanges.REUSE], counts[RouteChanges.PATCH],
                    counts[RouteChanges.FULL]);
        }
        return new DmodcRouting(fabric, result, pre.ranks.array(), pre.cd.costs(), pre.cd.dividers(), pre.cd.profiles(),
                rowCounts);
    }

    /** True when both fabrics have the same leaf switches (GUIDs) in the same order, so cost columns match. */
    private static boolean sameLeaves(FabricIndex before, FabricIndex next) {
        if (before.leafCount() != next.leafCount()) {
            return false;
        }
        for (int l = 0; l < next.leafCount(); l++) {
            if (before.switchGuid(before.leaves()[l]) != next.switchGuid(next.leaves()[l])) {
                return false;
            }
        }
        return true;
    }

    /** What the preprocessing phases produced, and the clock that timed them and times the phases after them. */
    private record Preprocessing(PhaseClock clock, Ranks ranks, LeafDestinations destinations, CostDivider.Result cd) {
    }

    @Override
    public void close() {
        pool.close();
    }
}
