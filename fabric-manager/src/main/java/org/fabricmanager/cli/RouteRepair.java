package org.fabricmanager.cli;

import java.nio.file.Path;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LftText;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.routing.dmodc.repair.TableChurn;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.TopologyException;

/**
 * {@code route --previous LFT}: repairs the tables in force (an {@code lft-text/1} file) for the fabric
 * given, as the daemon does after a fault ({@link DmodcEngine#repair(ForwardingTables, FabricIndex)}), and
 * says on stderr how many entries changed against them and the least any valid routing changes.
 */
final class RouteRepair {
    private RouteRepair() {
    }

    static RoutingResult repair(Path previousFile, FabricIndex index, int threads, Console console) {
        ForwardingTables previous;
        try {
            previous = LftText.read(previousFile);
        } catch (TopologyException | IllegalArgumentException e) {
            throw new UsageException("route: --previous " + previousFile + ": " + e.getMessage(), e);
        }
        try (DmodcEngine engine = new DmodcEngine(threads); RoutingPool pool = new RoutingPool(threads, "churn")) {
            DmodcRouting repaired = engine.repair(previous, index);
            TableChurn churn = TableChurn.between(previous, repaired.result().tables(), index, repaired.costs(), pool);
            console.err().printf("route: repaired %s: %,d entries changed, minimum %,d (%.2fx)%n", previousFile,
                    churn.changedEntries(), churn.minimumEntries(), churn.ratio());
            return repaired.result();
        } catch (RoutingException e) {
            throw new UsageException("route: " + e.getMessage(), e);
        }
    }
}
