package org.fabricmanager.routing.baseline;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseClock;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OpenSM's MinHop engine as the routing memo proposes it: dense per-leaf hop tables by one BFS per
 * leaf (section 4.2), then on each switch, for each target leaf, the ports leading one hop closer
 * are the candidates and each of the leaf's nodes takes the least-subscribed one (section 4.3).
 * Every route is a shortest path, but nothing prevents credit loops: MinHop is not deadlock-free in
 * general. Phases: {@code hops}, {@code routes}, {@code validity}.
 */
public final class MinHopEngine implements RoutingEngine {
    /** The name the CLI and configuration use. */
    public static final String NAME = "minhop";
    private static final Logger LOG = LoggerFactory.getLogger(MinHopEngine.class);

    private final RoutingPool pool;

    /** An engine routing on {@code threads} threads (at least 1). */
    public MinHopEngine(int threads) {
        this.pool = new RoutingPool(threads, NAME);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public RoutingResult route(FabricIndex index) {
        PhaseClock clock = new PhaseClock();
        HopTables hops = HopTables.compute(index, pool);
        clock.lap("hops");

        long[] guids = new long[index.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = index.switchGuid(s);
        }
        ForwardingTables.Builder builder = ForwardingTables.builder(guids, index.destinationCount());
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        int[] portStart = index.groupPortStartArray();
        int[] groupPorts = index.groupPortArray();
        LeastSubscribedRoutes.fill(index, builder, pool, (s, k, out) -> {
            int h = hops.hops(s, k);
            if (h == HopTables.UNREACHABLE) {
                return 0;
            }
            int count = 0;
            for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                if (hops.hops(neighbours[g], k) == h - 1) {
                    count = CandidatePorts.addGroup(portStart, groupPorts, g, out, count);
                }
            }
            return count;
        });
        ForwardingTables tables = builder.build();
        clock.lap("routes");

        int[] leaves = index.leaves();
        Validity validity = LeafPairs.validity(index,
                (a, b) -> hops.hops(leaves[a], b) != HopTables.UNREACHABLE);
        clock.lap("validity");
        PhaseTimings timings = clock.timings();
        LOG.debug("minhop: {} switches, {} destinations routed in {} ms, {} unreachable leaf pairs",
                index.switchCount(), index.destinationCount(), Math.round(timings.totalMillis()),
                validity.unreachablePairs());
        return new RoutingResult(NAME, tables, validity, timings);
    }

    @Override
    public void close() {
        pool.close();
    }
}
