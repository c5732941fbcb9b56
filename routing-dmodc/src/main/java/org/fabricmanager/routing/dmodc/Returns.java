package org.fabricmanager.routing.dmodc;

import java.util.function.Supplier;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LinkChanges;
import org.fabricmanager.routing.PhaseClock;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.repair.ReturnOverlay;
import org.fabricmanager.routing.dmodc.repair.TableMix;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftSpec;

/**
 * What a repair does for elements that may have come back (docs/routing.md, "Returns"), known from the fabrics
 * alone ({@link #of}): the one the repair is for, and the one its tables were valid for. When links may have come
 * back, {@link #takeBack} gives the routes a full routing of the fabric sends over them back to them.
 */
enum Returns {
    /**
     * The base routing's own fabric, whole (a flap back before the base changed): the repair gives the base's tables
     * back, and they are the engine's full routing already (its routings and repairs of a whole fabric are), which
     * spares routing the fabric in full again.
     */
    SAME_FABRIC,
    /** Any other whole fabric (all of its expected PGFT, whatever its GUIDs): the engine's full routing of it. */
    WHOLE,
    /** Links may have come back: the fabric gained some, or the tables' own fabric is unknown. */
    SEARCH,
    /** The fabric gained no link over the tables' own: nothing came back. */
    NONE;

    /**
     * After a return, the most the all-to-all maximum of the repaired tables may exceed that of the full routing of the
     * fabric (Dmodc's, or its refinement's; as a factor) before the return takes the full routing whole.
     */
    static final double BALANCE = 1.02;
    /**
     * The largest tables (switches times destinations) whose return is checked against that bound: the check counts
     * all-to-all twice on the routing thread, which must stay free for the next fault, and at 65,536 nodes (335
     * million entries) that takes too long (docs/performance.md, "Faults and returns").
     */
    static final long BALANCE_CHECK_MAX_ENTRIES = 32_000_000;

    /**
     * For a repair for {@code next} of tables valid for {@code before} ({@code null}: unknown), those of the engine's
     * routing or repair of it when {@code fromRouting}.
     */
    static Returns of(FabricIndex before, FabricIndex next, boolean fromRouting) {
        if (whole(next)) {
            return fromRouting && LinkChanges.none(before, next) ? SAME_FABRIC : WHOLE;
        }
        return before != null && !LinkChanges.added(before, next) ? NONE : SEARCH;
    }

    /**
     * True when the fabric holds as many switches, nodes and links as its expected PGFT: whole, whatever its GUIDs
     * (OpenSM's subnets carry their own, not the generator's). A miswired fabric with those counts counts as whole
     * too: a return then takes its full routing, which is valid, only not the least change.
     */
    static boolean whole(FabricIndex index) {
        PgftSpec spec = index.fabric().pgft().orElse(null);
        Fabric fabric = index.fabric(); // its nodes: under an LMC the index has a position for each LID of a node
        return spec != null && fabric.switches().size() == spec.totalSwitchCount()
                && fabric.nodes().size() == spec.nodeCount() && fabric.links().size() == spec.totalLinkCount();
    }

    /**
     * {@code repaired}, a repair of {@code inForce} for {@code next} (whose costs are {@code costs}), with the routes
     * that {@code full} (the engine's full routing of {@code next}, computed only when a link came back) sends over
     * returned links taken back ({@link ReturnOverlay}); {@code full} whole when the repairs of the faults still out
     * crowd more than it does, as a return gives the balance back. Phases on {@code clock}: {@code returns}, then
     * {@code balance} when the tables are small enough for the check.
     */
    static TableMix.Result takeBack(FabricIndex next, CostTable costs, ForwardingTables inForce,
                                    ForwardingTables repaired, Supplier<ForwardingTables> full, PhaseClock clock,
                                    RoutingPool pool) {
        long[] returned = ReturnOverlay.returnedPorts(next, inForce, pool);
        if (returned == null) {
            clock.lap("returns");
            return new TableMix.Result(repaired, 0);
        }
        ForwardingTables fullTables = full.get();
        TableMix.Result overlaid = ReturnOverlay.overlay(next, costs, repaired, fullTables, returned, pool);
        clock.lap("returns");
        if ((long) next.switchCount() * next.destinationCount() > BALANCE_CHECK_MAX_ENTRIES) {
            return overlaid;
        }
        boolean crowded = allToAllMax(next, overlaid.tables(), pool) > allToAllMax(next, fullTables, pool) * BALANCE;
        TableMix.Result result = crowded ? ReturnOverlay.whole(repaired, fullTables, pool) : overlaid;
        clock.lap("balance");
        return result;
    }

    /** The most routes of all-to-all traffic on one link between switches of {@code fabric} under {@code tables}. */
    private static long allToAllMax(FabricIndex fabric, ForwardingTables tables, RoutingPool pool) {
        return new CongestionAnalyzer(RoutedFabric.of(fabric, tables), pool.threads())
                .analyze(new TrafficPattern.AllToAll()).max();
    }
}
