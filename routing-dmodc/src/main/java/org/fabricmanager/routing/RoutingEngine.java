package org.fabricmanager.routing;

import org.fabricmanager.topology.FabricIndex;

/**
 * Computes forwarding tables for a fabric snapshot. Implementations are stateless between calls
 * (apart from a thread pool they may be given) and never modify the snapshot.
 */
public interface RoutingEngine {

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
}
