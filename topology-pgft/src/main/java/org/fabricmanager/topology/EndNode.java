package org.fabricmanager.topology;

/**
 * An end node (host channel adapter) with its destination index {@code d}, the number the routing
 * formulas use. End nodes have a single port, port 1.
 */
public record EndNode(long guid, String name, int index) {
    public EndNode {
        if (name == null || name.isBlank()) {
            throw new TopologyException("node " + Guids.format(guid) + ": empty name");
        }
        if (index < 0) {
            throw new TopologyException("node " + Guids.format(guid) + " (" + name + "): negative index " + index);
        }
    }
}
