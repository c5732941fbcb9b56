package org.fabricmanager.routing;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A parallel loop given up because its caller no longer wants the result ({@link RoutingPool#forEach(int,
 * Supplier, BooleanSupplier)}, {@link RoutingPool#abandoning}): for example a routing's quality measurement or a
 * refinement overtaken by a fault, whose routing must not share the cores with it or wait for it. Not an error:
 * the caller that asked for the abandonment catches it. No stack trace: it is thrown on purpose, and may be often.
 */
public final class AbandonedException extends RuntimeException {
    public AbandonedException() {
        super("abandoned", null, false, false);
    }
}
