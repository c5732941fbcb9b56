package org.fabricmanager.routing.dmodc;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dmodc (Gliksberg et al., "High-Quality Fault Resiliency in Fat-Trees", section 3) with the
 * reproducibility conventions of {@code shared/spec/FORMATS.md}: ranking by BFS from the leaves,
 * port groups by neighbour GUID, costs and dividers by Procedure 1, routes by formulas (1)-(4).
 * Works on any fabric, intact or degraded; leaf pairs without an up*&#47;down* path are reported in
 * the {@link Validity} and their entries stay {@link ForwardingTables#NO_ROUTE}.
 *
 * <p>The engine owns a {@link RoutingPool}: preprocessing runs one barrier per rank going up, then
 * down; routes run switch by switch in parallel. Tables do not depend on the number of threads.
 * Phases: {@code ranking}, {@code groups}, {@code cost+divider}, {@code routes}, {@code validity}.
 */
public final class DmodcEngine implements RoutingEngine {
    /** The engine's name. */
    public static final String NAME = "dmodc";

    private static final Logger LOG = LoggerFactory.getLogger(DmodcEngine.class);

    private final RoutingPool pool;

    /** An engine with {@code threads} workers (the calling thread included). */
    public DmodcEngine(int threads) {
        this.pool = new RoutingPool(threads, NAME);
    }

    /** An engine with one worker per available processor. */
    public DmodcEngine() {
        this(Runtime.getRuntime().availableProcessors());
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Number of worker threads. */
    public int threads() {
        return pool.threads();
    }

    @Override
    public RoutingResult route(FabricIndex fabric) {
        return compute(fabric).result();
    }

    /** Routes {@code fabric} and keeps the preprocessing, for alternative ports and diagnostics. */
    public DmodcRouting compute(FabricIndex fabric) {
        List<PhaseTimings.Phase> phases = new ArrayList<>(5);
        long t0 = System.nanoTime();
        Ranks ranks = Ranks.of(fabric);
        long t1 = System.nanoTime();
        phases.add(new PhaseTimings.Phase("ranking", t1 - t0));

        Neighbours neighbours = Neighbours.of(fabric, ranks);
        LeafDestinations destinations = LeafDestinations.of(fabric);
        long t2 = System.nanoTime();
        phases.add(new PhaseTimings.Phase("groups", t2 - t1));

        CostDivider.Result cd = CostDivider.compute(fabric, ranks, neighbours, pool);
        long t3 = System.nanoTime();
        phases.add(new PhaseTimings.Phase("cost+divider", t3 - t2));

        byte[][] rows = new RouteFill(fabric, cd.costs(), cd.dividers(), cd.profiles(), destinations).computeAll(pool);
        long[] guids = new long[fabric.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = fabric.switchGuid(s);
        }
        ForwardingTables tables = ForwardingTables.ofRows(guids, rows, fabric.destinationCount());
        long t4 = System.nanoTime();
        phases.add(new PhaseTimings.Phase("routes", t4 - t3));

        Validity validity = LeafValidity.check(fabric, cd.costs(), pool);
        long t5 = System.nanoTime();
        phases.add(new PhaseTimings.Phase("validity", t5 - t4));

        if (LOG.isDebugEnabled()) {
            LOG.debug("dmodc routed {} switches x {} destinations in {} ms on {} threads ({} unreachable leaf pairs)",
                    guids.length, fabric.destinationCount(), (t5 - t0) / 1_000_000, pool.threads(),
                    validity.unreachablePairs());
        }
        RoutingResult result = new RoutingResult(NAME, tables, validity, new PhaseTimings(phases));
        return new DmodcRouting(fabric, result, ranks.array(), cd.costs(), cd.dividers());
    }

    @Override
    public void close() {
        pool.close();
    }
}
