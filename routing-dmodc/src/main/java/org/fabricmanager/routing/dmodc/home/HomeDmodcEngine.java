package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import org.fabricmanager.routing.FabricShapes;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine {@value #NAME}: Dmodc, then each destination sent up its home plane by every leaf of a pod that can,
 * and the rest spread apart ({@link HomePlanes}). Dmodc's tables on an intact PGFT; on a degraded one every entry
 * is still one of Dmodc's candidates, so the same leaf pairs are routed, over shortest up*&#47;down* paths,
 * deadlock-free. Its re-route is a routing from scratch. Phases: Dmodc's, and {@code homes} after {@code routes}.
 */
public final class HomeDmodcEngine implements RoutingEngine {
    /** The engine's name. */
    public static final String NAME = "dmodc-home";
    private static final Logger LOG = LoggerFactory.getLogger(HomeDmodcEngine.class);

    private final DmodcEngine dmodc;
    private final RoutingPool pool;

    /** An engine whose Dmodc part and refinement run on {@code threads} workers. */
    public HomeDmodcEngine(int threads) {
        this.dmodc = new DmodcEngine(threads);
        this.pool = new RoutingPool(threads, NAME);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Dmodc's candidates, another choice among them. */
    @Override
    public FabricShapes shapes() {
        return FabricShapes.PGFT;
    }

    /** Offline only: 4.4-5.2 times Dmodc's time at 65,536 nodes and no repair path (docs/routing.md). */
    @Override
    public boolean routesForDaemon() {
        return false;
    }

    @Override
    public RoutingResult route(FabricIndex fabric) {
        DmodcRouting routing = dmodc.compute(fabric);
        long t0 = System.nanoTime();
        byte[][] rows = HomePlanes.apply(routing, pool);
        long t1 = System.nanoTime();
        if (LOG.isDebugEnabled()) {
            LOG.debug("dmodc-home: {} rows rewritten in {} ms", Arrays.stream(rows).filter(r -> r != null).count(),
                    (t1 - t0) / 1_000_000);
        }
        return routing.refined(NAME, rows, "homes", t1 - t0);
    }

    @Override
    public void close() {
        dmodc.close();
        pool.close();
    }
}
