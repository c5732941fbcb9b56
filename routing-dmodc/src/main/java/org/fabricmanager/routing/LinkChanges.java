package org.fabricmanager.routing;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;

/**
 * How two snapshots of one fabric differ in their links between switches, by GUID and port, without a look at any
 * table: a repair uses it to tell whether anything came back, the daemon whether its repairs' base still has every
 * link of the fabric in force.
 */
public final class LinkChanges {
    private LinkChanges() {
    }

    /**
     * True when {@code next} has a link between two switches that {@code before} does not have (a switch or a cable
     * that came back, or a new one). A look at every port.
     */
    public static boolean added(FabricIndex before, FabricIndex next) {
        for (int s = 0; s < next.switchCount(); s++) {
            int b = before.switchId(next.switchGuid(s));
            int[] peers = next.peerSwitches(s);
            int[] peersBefore = b == FabricIndex.NONE ? new int[0] : before.peerSwitches(b);
            for (int p = 1; p < peers.length; p++) {
                if (peers[p] == FabricIndex.NONE) {
                    continue;
                }
                if (p >= peersBefore.length || peersBefore[p] == FabricIndex.NONE
                        || before.switchGuid(peersBefore[p]) != next.switchGuid(peers[p])) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * True when {@code before} and {@code next} are the same fabric to a routing: the same switches, every port linked
     * to the same switch port or end node, every end node at the same destination index. A look at every port.
     */
    public static boolean none(FabricIndex before, FabricIndex next) {
        if (before == next) {
            return true;
        }
        if (before.switchCount() != next.switchCount() || before.nodeCount() != next.nodeCount()
                || before.destinationCount() != next.destinationCount()) {
            return false;
        }
        for (int s = 0; s < next.switchCount(); s++) {
            // switches are numbered in GUID order, nodes by position: equal numbers name the same elements
            if (before.switchGuid(s) != next.switchGuid(s)
                    || !Arrays.equals(before.peerSwitches(s), next.peerSwitches(s))
                    || !Arrays.equals(before.peerPorts(s), next.peerPorts(s))
                    || !Arrays.equals(before.peerNodes(s), next.peerNodes(s))) {
                return false;
            }
        }
        for (int n = 0; n < next.nodeCount(); n++) {
            if (before.nodeGuid(n) != next.nodeGuid(n) || before.nodeIndex(n) != next.nodeIndex(n)) {
                return false;
            }
        }
        return true;
    }
}
