package org.fabricmanager.routing.baseline;

import java.util.Locale;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseClock;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OpenSM's Up*&#47;Down* engine after the routing memo: switches are ordered by an
 * {@link UpDownOrder} (from the leaf switches by default, or from the roots the hop-histogram
 * heuristic of {@link RootDetector} finds), and every route goes up zero or more times, then down
 * zero or more times, which keeps the channel dependency graph acyclic.
 *
 * <p>Per target leaf, two dense byte tables are filled: the length of the shortest down-only path
 * (a BFS from the leaf over up moves) and the route length, taken in descending order: a switch
 * with a down-only path uses it, any other goes up towards the up-neighbours with the shortest
 * route. Taking the down path whenever there is one is what keeps destination-based tables legal:
 * a packet that came down into a switch can always continue down. In fat-trees (links between
 * adjacent levels, ranked from the leaves) the down-only path is the shortest of all paths, so
 * every route is a shortest up*&#47;down* path. Ports are then chosen least-subscribed as in
 * {@code minhop}. Phases: {@code ranking}, {@code costs}, {@code routes}, {@code validity}.
 */
public final class UpDownEngine implements RoutingEngine {
    /** The name the CLI and configuration use. */
    public static final String NAME = "updn";
    private static final Logger LOG = LoggerFactory.getLogger(UpDownEngine.class);
    private static final int INFINITE = LeafSearch.UNREACHED;

    /** Where the ranking starts. */
    public enum Ranking {
        /** From the switches with node links (leaves lowest); what {@code updn} uses by default. */
        LEAVES,
        /** From the roots the hop-histogram heuristic finds (roots highest). */
        DETECTED_ROOTS
    }

    private final RoutingPool pool;
    private final Ranking ranking;

    /** An engine ranking from the leaves, on {@code threads} threads. */
    public UpDownEngine(int threads) {
        this(threads, Ranking.LEAVES);
    }

    public UpDownEngine(int threads, Ranking ranking) {
        this.pool = new RoutingPool(threads, NAME);
        this.ranking = ranking;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The order this engine directs links of {@code index} by. */
    public UpDownOrder order(FabricIndex index) {
        if (ranking == Ranking.LEAVES) {
            return UpDownOrder.fromLeaves(index);
        }
        int[] roots = RootDetector.detect(index);
        if (roots.length == 0) {
            throw new RoutingException("updn: the hop-histogram heuristic found no root switch (none sees more"
                    + " than 90% of the nodes at one distance and under 5% at any other); rank from the leaves instead");
        }
        LOG.debug("updn: {} root switches detected, first {}", roots.length, Guids.format(index.switchGuid(roots[0])));
        return UpDownOrder.fromRoots(index, roots);
    }

    @Override
    public RoutingResult route(FabricIndex index) {
        PhaseClock clock = new PhaseClock();
        UpDownOrder order = order(index);
        clock.lap("ranking");

        int n = index.switchCount();
        int leafCount = index.leafCount();
        byte[][] down = new byte[n][leafCount];
        byte[][] cost = new byte[n][leafCount];
        int[] position = order.positions();
        int[] descending = order.descending();
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        LeafSearch.forEachLeaf(pool, index,
                (k, queue) -> costs(index, k, down, cost, position, descending, groupStart, neighbours, queue));
        clock.lap("costs");

        long[] guids = new long[n];
        for (int s = 0; s < n; s++) {
            guids[s] = index.switchGuid(s);
        }
        ForwardingTables.Builder builder = ForwardingTables.builder(guids, index.destinationCount());
        int[] portStart = index.groupPortStartArray();
        int[] groupPorts = index.groupPortArray();
        LeastSubscribedRoutes.fill(index, builder, pool, (s, k, out) -> {
            int d = down[s][k] & 0xff;
            int c = cost[s][k] & 0xff;
            if (c == INFINITE) {
                return 0;
            }
            boolean goDown = d != INFINITE;
            int count = 0;
            for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                int t = neighbours[g];
                boolean allowed = goDown
                        ? position[t] < position[s] && (down[t][k] & 0xff) == d - 1
                        : position[t] > position[s] && (cost[t][k] & 0xff) == c - 1;
                if (allowed) {
                    count = CandidatePorts.addGroup(portStart, groupPorts, g, out, count);
                }
            }
            return count;
        });
        ForwardingTables tables = builder.build();
        clock.lap("routes");

        int[] leaves = index.leaves();
        Validity validity = LeafPairs.validity(index, (a, b) -> (cost[leaves[a]][b] & 0xff) != INFINITE);
        clock.lap("validity");
        PhaseTimings timings = clock.timings();
        LOG.debug("updn: {} switches, {} destinations routed in {} ms, {} unreachable leaf pairs", n,
                index.destinationCount(), Math.round(timings.totalMillis()), validity.unreachablePairs());
        return new RoutingResult(NAME, tables, validity, timings);
    }

    /** Down-only distances and route lengths of every switch to leaf number {@code k}. */
    private static void costs(FabricIndex index, int k, byte[][] down, byte[][] cost, int[] position, int[] descending,
                              int[] groupStart, int[] neighbours, int[] queue) {
        int leaf = index.leaves()[k];
        int n = index.switchCount();
        for (int s = 0; s < n; s++) {
            down[s][k] = (byte) INFINITE;
            cost[s][k] = (byte) INFINITE;
        }
        // Shortest down-only paths to the leaf, found backwards: from the leaf, over up moves.
        LeafSearch.overUpMoves(NAME, index, k, down, position, queue);
        // Route lengths, highest switch first so that every up-neighbour is done before its lower neighbours.
        for (int s : descending) {
            int d = down[s][k] & 0xff;
            if (d != INFINITE) {
                cost[s][k] = (byte) d;
                continue;
            }
            int best = INFINITE;
            for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                int u = neighbours[g];
                if (position[u] > position[s]) {
                    best = Math.min(best, cost[u][k] & 0xff);
                }
            }
            if (best != INFINITE) {
                cost[s][k] = (byte) LeafSearch.checked(NAME, index, s, leaf, best + 1);
            }
        }
    }

    @Override
    public void close() {
        pool.close();
    }

    @Override
    public String toString() {
        return NAME + "(" + ranking.name().toLowerCase(Locale.ROOT) + ")";
    }
}
