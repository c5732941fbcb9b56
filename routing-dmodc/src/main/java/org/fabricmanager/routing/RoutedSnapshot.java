package org.fabricmanager.routing;

import org.fabricmanager.topology.FabricIndex;

/**
 * A fabric snapshot together with the routing an engine computed for it: what a caller keeps
 * between two routings so that the engine can {@link RoutingEngine#reroute re-route} the next
 * snapshot from it. Engines that re-route incrementally return their own implementation, which also
 * holds the preprocessing they reuse (Dmodc's costs and dividers); to any other engine a snapshot is
 * just the previous fabric and result. Immutable.
 */
public interface RoutedSnapshot {

    /** The fabric that was routed. */
    FabricIndex fabric();

    /** Its tables, validity and timings. */
    RoutingResult result();

    /** A snapshot holding only the fabric and the result (nothing an engine could reuse). */
    static RoutedSnapshot of(FabricIndex fabric, RoutingResult result) {
        return new Plain(fabric, result);
    }

    /** The snapshot of {@link #of}. */
    record Plain(FabricIndex fabric, RoutingResult result) implements RoutedSnapshot {
    }
}
