package org.fabricmanager.routing;

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
}
