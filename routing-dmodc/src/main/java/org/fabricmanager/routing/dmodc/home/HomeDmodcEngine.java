package org.fabricmanager.routing.dmodc.home;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseTimings;
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

    @Override
    public RoutingResult route(FabricIndex fabric) {
        DmodcRouting routing = dmodc.compute(fabric);
        long t0 = System.nanoTime();
        HomePlanes.Result homes = HomePlanes.apply(routing, pool);
        ForwardingTables base = routing.result().tables();
        int[] reuse = new int[fabric.switchCount()];
        byte[][] rows = homes.rows();
        for (int s = 0; s < reuse.length; s++) {
            reuse[s] = rows[s] == null ? s : -1;
        }
        long[] guids = new long[fabric.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = fabric.switchGuid(s);
        }
        ForwardingTables tables = ForwardingTables.ofRows(guids, rows, fabric.destinationCount(), base, reuse);
        long t1 = System.nanoTime();
        // the homes are chosen after Dmodc's validity, which they do not change: listed after routes all the same
        List<PhaseTimings.Phase> phases = new ArrayList<>(routing.result().timings().phases());
        int at = phases.size();
        for (int i = 0; i < phases.size(); i++) {
            if (phases.get(i).name().equals("routes")) {
                at = i + 1;
            }
        }
        phases.add(at, new PhaseTimings.Phase("homes", t1 - t0));
        LOG.debug("dmodc-home: {} rows rewritten in {} ms", Arrays.stream(rows).filter(r -> r != null).count(),
                (t1 - t0) / 1_000_000);
        return new RoutingResult(NAME, tables, routing.result().validity(), new PhaseTimings(phases));
    }

    @Override
    public void close() {
        dmodc.close();
        pool.close();
    }
}
