package org.fabricmanager.daemon.discovery;

import org.fabricmanager.topology.Fabric;

/** Orders a fabric's end nodes for destination-index assignment. */
@FunctionalInterface
public interface NodeOrdering {
    /** Every node GUID of {@code fabric}, in the order indices should be given. */
    long[] order(Fabric fabric);
}
