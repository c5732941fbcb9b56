package org.fabricmanager.daemon.chaos;

import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.fabricmanager.routing.FabricShapes;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LinkChanges;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.TableChurn;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.topology.FabricIndex;

/**
 * The configured engine, whose repair of a pure loss moves one entry too many: an entry whose whole route the repair
 * kept (it crossed nothing lost) goes to another of its Dmodc candidates, a neighbour as close to the destination, so
 * that every route stays a valid shortest up*&#47;down* one and only the judge of what a loss changes can tell.
 */
final class OneEntryTooManyEngine implements RoutingEngine {
    private final RoutingEngine real;
    private final TableRepairer repairer;

    OneEntryTooManyEngine(RoutingEngine real) {
        this.real = real;
        TableRepairer r = real.repairer().orElseThrow();
        this.repairer = new TableRepairer() {
            @Override
            public RoutedSnapshot repair(RoutedSnapshot base, ForwardingTables inForce, FabricIndex next) {
                RoutedSnapshot repaired = r.repair(base, inForce, next);
                if (!(repaired instanceof DmodcRouting d) || LinkChanges.added(base.fabric(), next)
                        || LinkChanges.none(base.fabric(), next)) {
                    return repaired; // a return, or nothing changed: not a loss
                }
                return oneMore(base.result().tables(), d);
            }

            @Override
            public RoutedSnapshot repair(ForwardingTables inForce, FabricIndex before, FabricIndex next) {
                return r.repair(inForce, before, next);
            }

            @Override
            public boolean refines() {
                return r.refines();
            }

            @Override
            public Optional<RoutedSnapshot> refine(ForwardingTables base, RoutedSnapshot repaired,
                                                   BooleanSupplier abandon) {
                return r.refine(base, repaired, abandon);
            }

            @Override
            public TableChurn churn(ForwardingTables before, RoutedSnapshot after, RoutingPool pool) {
                return r.churn(before, after, pool);
            }
        };
    }

    /** {@code repaired} with the first entry whose route it kept whole moved to another candidate port. */
    private static RoutedSnapshot oneMore(ForwardingTables base, DmodcRouting repaired) {
        FabricIndex next = repaired.index();
        ForwardingTables after = repaired.result().tables();
        for (int s = 0; s < after.switchCount(); s++) {
            int b = rowOf(base, after.switchGuid(s));
            if (b < 0) {
                continue;
            }
            for (int d = 0; d < after.destinationCount(); d++) {
                int port = after.port(s, d);
                if (port == ForwardingTables.NO_ROUTE || d >= base.destinationCount() || !keptWhole(base, after,
                        next, s, d)) {
                    continue;
                }
                for (int other : repaired.candidatePorts(s, d)) {
                    if (other != port) {
                        byte[][] rows = new byte[after.switchCount()][];
                        rows[s] = after.copyRow(s);
                        rows[s][d] = (byte) other;
                        return repaired.refinedRouting(repaired.result().engine(), rows, "one entry too many", 0);
                    }
                }
            }
        }
        return repaired;
    }

    /** True when every hop of the route from {@code s} to {@code d} in {@code after} has the port it had in {@code base}. */
    private static boolean keptWhole(ForwardingTables base, ForwardingTables after, FabricIndex next, int s, int d) {
        int at = s;
        for (int hops = 0; hops <= next.switchCount(); hops++) {
            int port = after.port(at, d);
            int b = rowOf(base, after.switchGuid(at));
            if (port == ForwardingTables.NO_ROUTE || b < 0 || base.port(b, d) != port) {
                return false;
            }
            int peer = next.peerSwitches(at)[port];
            if (peer == FabricIndex.NONE) {
                return true; // the end node's port
            }
            at = peer;
        }
        return false;
    }

    private static int rowOf(ForwardingTables tables, long guid) {
        for (int s = 0; s < tables.switchCount(); s++) {
            if (tables.switchGuid(s) == guid) {
                return s;
            }
        }
        return -1;
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public RoutingResult route(FabricIndex fabric) {
        return real.route(fabric);
    }

    @Override
    public RoutedSnapshot routeSnapshot(FabricIndex fabric) {
        return real.routeSnapshot(fabric);
    }

    @Override
    public RoutedSnapshot reroute(FabricIndex next, RoutedSnapshot previous) {
        return real.reroute(next, previous);
    }

    @Override
    public boolean reroutesIncrementally() {
        return real.reroutesIncrementally();
    }

    @Override
    public FabricShapes shapes() {
        return real.shapes();
    }

    @Override
    public Optional<TableRepairer> repairer() {
        return Optional.of(repairer);
    }

    @Override
    public void close() {
        real.close();
    }
}
