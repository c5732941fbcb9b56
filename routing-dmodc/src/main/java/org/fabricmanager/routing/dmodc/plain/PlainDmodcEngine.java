package org.fabricmanager.routing.dmodc.plain;

import java.util.List;
import org.fabricmanager.routing.FabricShapes;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TracedValidity;
import org.fabricmanager.topology.FabricIndex;

/**
 * The engine {@code dmodc-plain}: {@link PlainDmodc} on one thread, with the validity found by tracing every
 * leaf pair through its tables. It gives the same tables as {@code dmodc} on every fabric, far more slowly;
 * operators select it to check the fast engine on their own fabric ({@code route --verify}) or to rule it out
 * while chasing a routing problem.
 */
public final class PlainDmodcEngine implements RoutingEngine {
    /** The engine's name. */
    public static final String NAME = "dmodc-plain";

    @Override
    public String name() {
        return NAME;
    }

    /** Dmodc's tables. */
    @Override
    public FabricShapes shapes() {
        return FabricShapes.PGFT;
    }

    @Override
    public RoutingResult route(FabricIndex index) {
        long start = System.nanoTime();
        PlainDmodc plain = new PlainDmodc(index.fabric());
        long preprocessed = System.nanoTime();
        long[] guids = new long[index.switchCount()];
        if (plain.switchCount() != guids.length) {
            throw new RoutingException("dmodc-plain: " + plain.switchCount() + " switches in the fabric but "
                    + guids.length + " in its index");
        }
        for (int s = 0; s < guids.length; s++) {
            guids[s] = index.switchGuid(s);
            if (plain.switchGuid(s) != guids[s]) {
                throw new RoutingException("dmodc-plain: switch " + s + " is " + Long.toHexString(plain.switchGuid(s))
                        + " but the index has " + Long.toHexString(guids[s]));
            }
        }
        int destinations = index.destinationCount();
        ForwardingTables.Builder builder = ForwardingTables.builder(guids, destinations);
        for (int s = 0; s < guids.length; s++) {
            int[] row = plain.row(s);
            for (int d = 0; d < Math.min(destinations, row.length); d++) {
                builder.set(s, d, row[d]);
            }
        }
        ForwardingTables tables = builder.build();
        long routed = System.nanoTime();
        Validity validity = TracedValidity.of(RoutedFabric.of(index, tables));
        long traced = System.nanoTime();
        PhaseTimings timings = new PhaseTimings(List.of(new PhaseTimings.Phase("cost+divider", preprocessed - start),
                new PhaseTimings.Phase("routes", routed - preprocessed), new PhaseTimings.Phase("validity", traced - routed)));
        return new RoutingResult(NAME, tables, validity, timings);
    }
}
