package org.fabricmanager.routing;

import org.fabricmanager.topology.FabricIndex;

/**
 * Computes forwarding tables for a fabric snapshot. Implementations are stateless between calls
 * (apart from the thread pool they own) and never modify the snapshot; one instance may be reused
 * for many snapshots, which is how the daemon keeps its routing pool warm.
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

    /** Releases the engine's threads, if it has any; the engine must not be used afterwards. */
    @Override
    default void close() {
    }
}
