package org.fabricmanager.routing;

import java.util.Optional;
import java.util.function.BooleanSupplier;

import org.fabricmanager.topology.FabricIndex;

/**
 * What an engine that repairs offers ({@link RoutingEngine#repairer()}): the tables in force carried over to a
 * changed fabric with the least change for a fault, and for an element that came back the routes a full routing
 * gives it; and the churn of any routing against the tables in force. The daemon ({@code routing.onFault: repair})
 * and {@code route --previous} use it without knowing the engine.
 */
public interface TableRepairer {

    /**
     * The tables of {@code base} (a routing of this engine, or a repair) repaired for {@code next}, a later snapshot
     * of its fabric: valid for {@code next}, every entry whose route a fault did not reach kept, every route a full
     * routing of {@code next} sends over an element that came back taken back; on a whole fabric (nothing missing
     * from its expected shape) its full routing.
     */
    default RoutedSnapshot repair(RoutedSnapshot base, FabricIndex next) {
        return repair(base, null, next);
    }

    /**
     * {@link #repair(RoutedSnapshot, FabricIndex)}, where {@code inForce} (the tables in force, an earlier repair of
     * {@code base}; {@code null}: none) says where entries that {@code base} routes over something lost went: such an
     * entry keeps that port where it still leads closer, so that a second fault moves only what it must.
     */
    RoutedSnapshot repair(RoutedSnapshot base, ForwardingTables inForce, FabricIndex next);

    /**
     * The same for tables of unknown origin ({@code inForce}, e.g. read from a file), valid for {@code before}
     * ({@code null}: unknown), every entry checked.
     */
    RoutedSnapshot repair(ForwardingTables inForce, FabricIndex before, FabricIndex next);

    /** True when {@link #refine} can give tables other than the repair's (the engine's full routing is not Dmodc's). */
    default boolean refines() {
        return false;
    }

    /**
     * {@code repaired}, a repair of {@code base} by this engine, with every entry it moved away from {@code base}
     * taking the port of this engine's full routing of the same fabric: the same entries change, the balance is
     * that routing's. Empty when the engine has no other full routing ({@link #refines}), or the fabric is whole
     * (then the repair is the full routing already).
     */
    default Optional<RoutedSnapshot> refine(ForwardingTables base, RoutedSnapshot repaired) {
        return refine(base, repaired, () -> false);
    }

    /**
     * {@link #refine(ForwardingTables, RoutedSnapshot)}, given up with {@link AbandonedException} soon after
     * {@code abandon} turns true (the daemon's refinement, when the fabric changes under it).
     */
    default Optional<RoutedSnapshot> refine(ForwardingTables base, RoutedSnapshot repaired, BooleanSupplier abandon) {
        return Optional.empty();
    }

    /**
     * The churn of {@code after} (a routing or repair of this engine) against {@code before}, the tables in force,
     * counted on {@code pool}; {@code null} when {@code after} is not this engine's.
     */
    TableChurn churn(ForwardingTables before, RoutedSnapshot after, RoutingPool pool);
}
