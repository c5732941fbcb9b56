package org.fabricmanager.routing.analysis;

import org.fabricmanager.topology.Guids;

/**
 * A channel of the dependency graph, by name: the directed link from port {@code port} of switch
 * {@code switchGuid} to port {@code peerPort} of switch {@code peerGuid}, on virtual channel {@code vc}.
 */
public record Channel(long switchGuid, int port, long peerGuid, int peerPort, int vc) {
    @Override
    public String toString() {
        return Guids.format(switchGuid) + ":" + port + "->" + Guids.format(peerGuid) + ":" + peerPort
                + (vc == 0 ? "" : " vc" + vc);
    }
}
