package org.fabricmanager.routing.dmodc;

import java.util.Arrays;
import java.util.List;
import org.fabricmanager.routing.FabricShapes;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.routing.dmodc.fill.RowPatterns;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;

/**
 * Dmodk (Zahavi), the closed-form routing of an intact PGFT: every port follows from the switch's
 * position and the destination index by {@link DmodkFormula}, with no preprocessing at all. It
 * refuses any fabric that is not exactly the canonical fabric of its expected PGFT (degraded,
 * miswired or without a shape) with a {@link RoutingException} saying why. On the canonical fabric
 * its tables equal Dmodc's. Rows are filled run by run (a port holds for {@code W_l} consecutive
 * destinations), switches in parallel. Phases: {@code check}, {@code routes}.
 */
public final class DmodkEngine implements RoutingEngine {
    /** The engine's name. */
    public static final String NAME = "dmodk";

    private static final int GRAIN = 8;

    private final RoutingPool pool;

    /** An engine with {@code threads} workers (the calling thread included). */
    public DmodkEngine(int threads) {
        this.pool = new RoutingPool(threads, NAME);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The closed form of an intact canonical PGFT. */
    @Override
    public FabricShapes shapes() {
        return FabricShapes.PGFT;
    }

    @Override
    public RoutingResult route(FabricIndex fabric) {
        if (fabric.lmc() > 0) {
            // Dmodk's closed form knows one destination per node: each extra LID goes as its base LID
            RoutingResult base = route(fabric.fabric().withLmc(0).index());
            return new RoutingResult(NAME, base.tables().withPathBits(fabric.lmc()), base.validity(), base.timings());
        }
        long t0 = System.nanoTime();
        PgftSpec spec = CanonicalPgftCheck.require(fabric);
        long t1 = System.nanoTime();

        int switches = fabric.switchCount();
        byte[][] rows = new byte[switches][];
        long[] guids = new long[switches];
        int[] level = new int[switches];
        int[] position = new int[switches];
        for (int l = 1; l <= spec.h(); l++) {
            for (int idx = 0; idx < spec.switchCount(l); idx++) {
                int s = fabric.switchId(PgftGenerator.switchGuid(l, idx));
                level[s] = l;
                position[s] = idx;
            }
        }
        int nodes = spec.nodeCount();
        pool.forRange(switches, GRAIN, (worker, from, to) -> {
            for (int s = from; s < to; s++) {
                rows[s] = row(spec, level[s], position[s], nodes);
            }
        });
        for (int s = 0; s < switches; s++) {
            guids[s] = fabric.switchGuid(s);
        }
        ForwardingTables tables = ForwardingTables.ofRows(guids, rows, fabric.destinationCount());
        long t2 = System.nanoTime();
        PhaseTimings timings = new PhaseTimings(List.of(new PhaseTimings.Phase("check", t1 - t0),
                new PhaseTimings.Phase("routes", t2 - t1)));
        return new RoutingResult(NAME, tables, Validity.valid(), timings);
    }

    /** The row of level-{@code l} switch {@code idx}: {@link DmodkFormula#port} for every d, run by run. */
    static byte[] row(PgftSpec spec, int l, int idx, int nodes) {
        byte[] row = new byte[nodes];
        int wl = spec.bigW(l);
        int ml = spec.bigM(l);
        int below = (idx / wl) * ml;
        if (l < spec.h()) {
            int w = spec.w(l + 1);
            int p = spec.p(l + 1);
            int period = w * p;
            byte[] up = new byte[period];
            int upBase = 1 + spec.m(l) * spec.p(l);
            for (int r = 0; r < period; r++) {
                up[r] = (byte) (upBase + (r % w) * p + r / w);
            }
            // The up ports repeat every W_l × period destinations: write one cycle, copy the rest.
            long cycle = Math.min((long) wl * period, nodes);
            int r = 0;
            for (long d = 0; d < cycle; d += wl) {
                Arrays.fill(row, (int) d, (int) Math.min(d + wl, cycle), up[r]);
                if (++r == period) {
                    r = 0;
                }
            }
            RowPatterns.replicate(row, 0, (int) cycle, nodes);
        }
        if (l == 1) {
            for (int i = 0; i < ml; i++) {
                row[below + i] = (byte) (1 + i);
            }
            return row;
        }
        int child = spec.bigM(l - 1);
        int p = spec.p(l);
        for (int c = 0; c < spec.m(l); c++) {
            int from = below + c * child;
            int to = from + child;
            if (p == 1) {
                Arrays.fill(row, from, to, (byte) (1 + c));
                continue;
            }
            // The parallel link changes with q = floor(d / W_l): runs end at multiples of W_l.
            int d = from;
            while (d < to) {
                int q = d / wl;
                int stop = (int) Math.min(to, (q + 1L) * wl);
                Arrays.fill(row, d, stop, (byte) (1 + c * p + q % p));
                d = stop;
            }
        }
        return row;
    }

    @Override
    public void close() {
        pool.close();
    }
}
