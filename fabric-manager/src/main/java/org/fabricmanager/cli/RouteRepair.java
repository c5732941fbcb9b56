package org.fabricmanager.cli;

import java.nio.file.Path;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LftBinary;
import org.fabricmanager.routing.LftText;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.TableChurn;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.TopologyException;

/**
 * {@code route --previous LFT}: repairs the tables in force (an {@code lft-text/1} or {@code lft-bin/1} file) for the fabric
 * given, as the daemon does after a change ({@link TableRepairer#repair(ForwardingTables, FabricIndex, FabricIndex)}:
 * faults with the least change, returned elements taking back their routes), and says on stderr how many entries
 * changed against them, the least any valid routing changes and how many went back to returned elements.
 */
final class RouteRepair {
    private RouteRepair() {
    }

    static RoutingResult repair(Path previousFile, FabricIndex index, String engineName, int threads, boolean refine,
                                Console console) {
        ForwardingTables previous;
        long begin = System.nanoTime();
        boolean binary;
        try {
            binary = LftBinary.isBinary(previousFile);
            previous = binary ? LftBinary.read(previousFile) : LftText.read(previousFile);
        } catch (TopologyException | IllegalArgumentException e) {
            throw new UsageException("route: --previous " + previousFile + ": " + e.getMessage(), e);
        }
        // reading the tables in force was once most of a repair's time at 65,536 nodes: say what it cost
        console.err().printf("route: read %s (%s, %,d switches x %,d destinations) in %.0f ms%n", previousFile,
                binary ? LftBinary.FORMAT : LftText.FORMAT, previous.switchCount(), previous.destinationCount(),
                (System.nanoTime() - begin) / 1e6);
        try (RoutingEngine engine = RoutingEngines.create(engineName, threads);
             RoutingPool pool = new RoutingPool(threads, "churn")) {
            TableRepairer repairer = engine.repairer().orElseThrow(() -> new UsageException("route: --previous: engine "
                    + engineName + " does not repair tables (engines that do: "
                    + String.join(", ", RoutingEngines.repairing()) + ")"));
            // refined, as a daemon with routing.rebalance.refineAfter installs it: the moved entries at the full
            // routing's ports
            RoutedSnapshot repaired = repairer.repair(previous, null, index);
            RoutedSnapshot refined = refine ? repairer.refine(previous, repaired).orElse(repaired) : repaired;
            TableChurn churn = repairer.churn(previous, refined, pool);
            console.err().printf("route: repaired %s: %,d entries changed, minimum %,d (%.2fx)%s%s%n", previousFile,
                    churn.changedEntries(), churn.minimumEntries(), churn.ratio(), churn.takenBack() == 0 ? ""
                            : String.format(", %,d taken back by returned elements", churn.takenBack()),
                    refined == repaired ? "" : ", refined: the moved entries at the full routing's ports");
            return refined.result();
        } catch (RoutingException e) {
            throw new UsageException("route: " + e.getMessage(), e);
        }
    }
}
