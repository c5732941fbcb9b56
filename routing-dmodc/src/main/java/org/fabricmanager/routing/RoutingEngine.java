package org.fabricmanager.routing;

import java.util.Optional;
import org.fabricmanager.topology.FabricIndex;

/**
 * Computes forwarding tables for a fabric snapshot. Implementations are stateless between calls
 * (apart from the thread pool they own) and never modify the snapshot; one instance may be reused
 * for many snapshots, which is how the daemon keeps its routing pool warm.
 *
 * <p>A caller that routes a sequence of snapshots (the daemon, after each fault) keeps the
 * {@link RoutedSnapshot} of the last routing and passes it to {@link #reroute}: an engine that can
 * then recompute only what the change affects does so, the others route from scratch. Either way
 * the result is exactly {@link #route} of the new snapshot.
 */
public interface RoutingEngine extends AutoCloseable {

    /** The engine's name as the CLI and configuration spell it, e.g. {@code dmodc}. */
    String name();

    /**
     * Routes every destination index of {@code fabric} on every switch.
     *
     * @throws RoutingException when the engine cannot route this fabric at all (e.g. {@code dmodk}
     *                          on a degraded fabric); a fabric that is only partly routable yields
     *                          a result whose {@link RoutingResult#validity()} lists what is unreachable
     */
    RoutingResult route(FabricIndex fabric);

    /**
     * {@link #route} of {@code fabric}, kept with what a later {@link #reroute} can reuse. By
     * default the fabric and the result only.
     *
     * @throws RoutingException as {@link #route} does
     */
    default RoutedSnapshot routeSnapshot(FabricIndex fabric) {
        return RoutedSnapshot.of(fabric, route(fabric));
    }

    /**
     * Routes {@code next}, a later snapshot of the fabric {@code previous} was routed for (links or
     * switches gone or back, by GUID). The tables and the validity are exactly those of
     * {@link #route}{@code (next)}; an engine may reuse {@code previous} (which may come from another
     * engine, or from this engine with other settings) to get there with less work, and then reports
     * phases of its own. By default it routes {@code next} from scratch.
     *
     * @throws RoutingException as {@link #route} does
     */
    default RoutedSnapshot reroute(FabricIndex next, RoutedSnapshot previous) {
        return routeSnapshot(next);
    }

    /**
     * True when {@link #reroute} does less work than a routing from scratch (it reuses the previous routing): the
     * daemon then rehearses it once after start, so that a real fault's re-route runs compiled code.
     */
    default boolean reroutesIncrementally() {
        return false;
    }

    /**
     * True when the daemon may route with this engine (start, rebalance, every change): fast enough at the
     * fabric's size and stable under faults. False for engines kept for {@code route}, {@code quality} and
     * {@code compare} only.
     */
    default boolean routesForDaemon() {
        return true;
    }

    /**
     * The expected fabric shapes this engine is made for; the daemon refuses it for another expected shape. By
     * default {@link FabricShapes#ANY}.
     */
    default FabricShapes shapes() {
        return FabricShapes.ANY;
    }

    /** How this engine repairs the tables in force for a changed fabric, when it can ({@link TableRepairer}). */
    default Optional<TableRepairer> repairer() {
        return Optional.empty();
    }

    /** Releases the engine's threads, if it has any; the engine must not be used afterwards. */
    @Override
    default void close() {
    }
}
