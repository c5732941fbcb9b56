package org.fabricmanager.routing.dmodc.weighted;

import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine {@value #NAME}: Dmodc, then the up choices that failures thinned chosen by the load already
 * placed ({@link LoadWeighting}). Dmodc's tables on an intact fabric; on a degraded one every entry is still
 * one of Dmodc's candidates, so the same leaf pairs are routed, over shortest up*&#47;down* paths, deadlock-free.
 * Its re-route is a routing from scratch. Phases: Dmodc's, and {@code weights} after {@code routes}.
 */
public final class WeightedDmodcEngine implements RoutingEngine {
    /** The engine's name. */
    public static final String NAME = "dmodc-weighted";
    private static final Logger LOG = LoggerFactory.getLogger(WeightedDmodcEngine.class);

    private final DmodcEngine dmodc;

    /** An engine whose Dmodc part runs on {@code threads} workers (the weighting is sequential). */
    public WeightedDmodcEngine(int threads) {
        this.dmodc = new DmodcEngine(threads);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public RoutingResult route(FabricIndex fabric) {
        DmodcRouting routing = dmodc.compute(fabric);
        long t0 = System.nanoTime();
        LoadWeighting.Result weighted = LoadWeighting.apply(routing);
        long t1 = System.nanoTime();
        LOG.debug("dmodc-weighted: {} entries moved off Dmodc's choice in {} ms", weighted.changed(),
                (t1 - t0) / 1_000_000);
        return routing.refined(NAME, weighted.rows(), "weights", t1 - t0);
    }

    @Override
    public void close() {
        dmodc.close();
    }
}
