package org.fabricmanager.routing.dmodc.home;

import java.util.Optional;
import org.fabricmanager.routing.FabricShapes;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine {@value #NAME}: Dmodc, then each destination sent up its home plane by every leaf of a pod that can,
 * and the rest spread apart ({@link HomePlanes}). Dmodc's tables on an intact PGFT; on a degraded one every entry
 * is still one of Dmodc's candidates, so the same leaf pairs are routed, over shortest up*&#47;down* paths,
 * deadlock-free. Its re-route is a routing from scratch. It repairs as Dmodc does ({@link DmodcEngine#repair}), the
 * tables in force kept where their ports still step closer, and an element that comes back takes back the routes of
 * this engine's full routing, so a whole fabric gets Dmodc's tables again. Phases: Dmodc's, and {@code homes} after
 * {@code routes}.
 */
public final class HomeDmodcEngine implements RoutingEngine {
    /** The engine's name. */
    public static final String NAME = "dmodc-home";
    private static final Logger LOG = LoggerFactory.getLogger(HomeDmodcEngine.class);

    /** Dmodc, with the home planes as the refinement of the full routings its repairs give back. */
    private final DmodcEngine dmodc;

    /** An engine whose Dmodc part and refinement run on {@code threads} workers. */
    public HomeDmodcEngine(int threads) {
        this.dmodc = new DmodcEngine(threads, NAME, HomePlanes::apply);
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

    @Override
    public RoutingResult route(FabricIndex fabric) {
        return routeSnapshot(fabric).result();
    }

    /** The routing kept with Dmodc's preprocessing, so that a repair from it checks only what changed. */
    @Override
    public DmodcRouting routeSnapshot(FabricIndex fabric) {
        DmodcRouting routing = dmodc.compute(fabric);
        long t0 = System.nanoTime();
        byte[][] rows = dmodc.refine(routing);
        long t1 = System.nanoTime();
        if (LOG.isDebugEnabled()) {
            int rewritten = 0;
            for (byte[] row : rows) {
                rewritten += row == null ? 0 : 1;
            }
            LOG.debug("dmodc-home: {} rows rewritten in {} ms", rewritten, (t1 - t0) / 1_000_000);
        }
        return routing.refinedRouting(NAME, rows, "homes", t1 - t0);
    }

    @Override
    public RoutedSnapshot reroute(FabricIndex next, RoutedSnapshot previous) {
        return routeSnapshot(next);
    }

    @Override
    public Optional<TableRepairer> repairer() {
        return Optional.of(dmodc);
    }

    @Override
    public void close() {
        dmodc.close();
    }
}
