package org.fabricmanager.routing.vtftr;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.FabricShapes;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.HdftLayout;
import org.fabricmanager.topology.TopologyException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VTFTR (Liu et al., "VTFTR: deadlock-free fault-tolerant routing in high-dimensional fat-trees"):
 * routing for 2-D fat trees with failed leaf switches. Routes go xy (row, then column); around a
 * failed turn leaf {@code (xd, ys)} they go yx through {@code (xs, yd)}; when both have failed, a
 * row switch mis-routes once to a leaf of a fault-free column and the route goes yx from there, two
 * hops longer. Tables are plain destination-based LFTs ({@link VtftrRoutes}); the tables carry
 * {@link org.fabricmanager.routing.VcRules}: the column-to-row turn moves packets to virtual channel
 * 1, which makes the routes deadlock-free with two channels.
 *
 * <p>Rows and columns come from the fabric's structure ({@link HdftLayout}), so any GUIDs work; a
 * fabric that is not a 2-D fat tree is refused. Phases: {@code layout}, {@code routes},
 * {@code validity}.
 */
public final class VtftrEngine implements RoutingEngine {
    /** The name the CLI and configuration use. */
    public static final String NAME = "vtftr";
    private static final Logger LOG = LoggerFactory.getLogger(VtftrEngine.class);

    private final RoutingPool pool;

    /** An engine routing on {@code threads} threads (at least 1). */
    public VtftrEngine(int threads) {
        this.pool = new RoutingPool(threads, NAME);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** It refuses a fabric that is not a 2-D fat tree. */
    @Override
    public FabricShapes shapes() {
        return FabricShapes.HDFT;
    }

    @Override
    public RoutingResult route(FabricIndex index) {
        if (index.lmc() > 0) {
            // the grid's channels are per node: each extra LID goes as its base LID, on its channels
            RoutingResult base = route(index.fabric().withLmc(0).index());
            return new RoutingResult(NAME, base.tables().withPathBits(index.lmc()), base.validity(), base.timings());
        }
        List<PhaseTimings.Phase> phases = new ArrayList<>();
        long t0 = System.nanoTime();
        HdftLayout layout;
        try {
            layout = HdftLayout.of(index);
        } catch (TopologyException e) {
            throw new RoutingException("vtftr routes 2-D fat trees (rows and columns of leaf switches) only: "
                    + e.getMessage(), e);
        }
        GridPorts grid = new GridPorts(layout);
        DetourCandidates detours = new DetourCandidates(grid);
        long t1 = System.nanoTime();
        phases.add(new PhaseTimings.Phase("layout", t1 - t0));

        long[] guids = new long[index.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = index.switchGuid(s);
        }
        ForwardingTables.Builder builder = ForwardingTables.builder(guids, index.destinationCount());
        VtftrRoutes routes = new VtftrRoutes(grid, detours);
        byte[][] rows = new byte[guids.length][];
        for (int s = 0; s < guids.length; s++) {
            rows[s] = builder.row(s);
        }
        pool.forEach(guids.length, () -> s -> routes.fill(s, rows[s]));
        ForwardingTables tables = builder.build().withVcRules(VtftrChannels.of(layout));
        long t2 = System.nanoTime();
        phases.add(new PhaseTimings.Phase("routes", t2 - t1));

        Validity validity = TableValidity.of(index, tables, pool);
        long t3 = System.nanoTime();
        phases.add(new PhaseTimings.Phase("validity", t3 - t2));
        PhaseTimings timings = new PhaseTimings(phases);
        LOG.debug("vtftr: {} x {} grid, {} leaves, fault-free columns {}, rows {}; {} destinations routed in {} ms,"
                        + " {} unreachable leaf pairs", layout.columns(), layout.rows(), layout.leafCount(),
                detours.faultFreeColumns().length, detours.faultFreeRows().length, index.destinationCount(),
                Math.round(timings.totalMillis()), validity.unreachablePairs());
        return new RoutingResult(NAME, tables, validity, timings);
    }

    @Override
    public void close() {
        pool.close();
    }
}
