package org.fabricmanager.topology;

/**
 * A switch of the fabric: its GUID, a human name and its number of ports (ports are numbered
 * 1..{@code ports}).
 */
public record FabricSwitch(long guid, String name, int ports) {
    public FabricSwitch {
        if (name == null || name.isBlank()) {
            throw new TopologyException("switch " + Guids.format(guid) + ": empty name");
        }
        if (ports < 1 || ports > 254) {
            throw new TopologyException("switch " + Guids.format(guid) + " (" + name + "): port count " + ports
                    + " outside [1, 254]");
        }
    }
}
