package org.fabricmanager.daemon.push;

import java.util.function.LongPredicate;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;

/**
 * Which switches the tables computed for a fabric route no traffic through: those with no link to a switch or an end
 * node in it, and those it does not have. A switch whose cables all went down (a dead switch whose agent still talks,
 * refusing every table because its bridge is gone) or whose ports are all drained or quarantined stays in the fabric
 * while its session lasts; no packet can reach it, so what it holds forwards nothing, and convergence need not wait
 * for it. A switch that lost its session leaves the fabric routed next, and no packet is routed to it either.
 */
public final class RoutedAround {
    private RoutedAround() {
    }

    /**
     * The switches that {@code fabric} does not have or gives no link (its index, which routing built, answers each
     * in O(ports)).
     */
    public static LongPredicate in(Fabric fabric) {
        FabricIndex index = fabric.index();
        return guid -> {
            int s = index.switchId(guid);
            if (s == FabricIndex.NONE) {
                return true;
            }
            int[] switches = index.peerSwitches(s);
            int[] nodes = index.peerNodes(s);
            for (int p = 1; p <= index.switchPorts(s); p++) {
                if (switches[p] != FabricIndex.NONE || nodes[p] != FabricIndex.NONE) {
                    return false;
                }
            }
            return true;
        };
    }
}
