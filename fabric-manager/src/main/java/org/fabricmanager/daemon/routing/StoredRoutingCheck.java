package org.fabricmanager.daemon.routing;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;

/**
 * Whether stored tables fit the fabric they are about to be reused for: the same switches in the same order, one
 * entry per destination index, and every entry either {@link ForwardingTables#NO_ROUTE} or a port of its switch that
 * has a cable. The stored fingerprint only says what the file claims; a file that matches it with foreign switches or
 * ports would be pushed for ever (its switches never acknowledge) or route into unconnected ports, and still be
 * reported valid. Reads every entry once, at start-up.
 */
final class StoredRoutingCheck {
    private StoredRoutingCheck() {
    }

    /** Why {@code tables} cannot route the fabric of {@code index}, or {@code null} when they fit it. */
    static String mismatch(ForwardingTables tables, FabricIndex index) {
        if (tables.switchCount() != index.switchCount()) {
            return tables.switchCount() + " switches in the tables, " + index.switchCount() + " in the fabric";
        }
        if (tables.destinationCount() != index.destinationCount()) {
            return tables.destinationCount() + " destinations in the tables, " + index.destinationCount()
                    + " in the fabric";
        }
        int destinations = tables.destinationCount();
        byte[] row = new byte[destinations];
        boolean[] cabled = new boolean[256];
        for (int s = 0; s < index.switchCount(); s++) {
            if (tables.switchGuid(s) != index.switchGuid(s)) {
                return "row " + s + " is for switch " + Guids.format(tables.switchGuid(s)) + ", the fabric's switch "
                        + s + " is " + Guids.format(index.switchGuid(s));
            }
            int ports = index.switchPorts(s);
            int[] peerSwitches = index.peerSwitches(s);
            int[] peerNodes = index.peerNodes(s);
            Arrays.fill(cabled, false);
            cabled[ForwardingTables.NO_ROUTE] = true;
            for (int p = 1; p <= ports && p < ForwardingTables.NO_ROUTE; p++) {
                cabled[p] = peerSwitches[p] != FabricIndex.NONE || peerNodes[p] != FabricIndex.NONE;
            }
            tables.copyEntries(s, 0, row, 0, destinations);
            for (int d = 0; d < destinations; d++) {
                if (!cabled[row[d] & 0xff]) {
                    return "switch " + Guids.format(index.switchGuid(s)) + " routes destination " + d + " to port "
                            + (row[d] & 0xff) + ", which has no cable in the fabric (" + ports + " ports)";
                }
            }
        }
        return null;
    }
}
