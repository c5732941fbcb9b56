package org.fabricmanager.topology;

/** One port of a switch or node, named by the device's GUID and the port number. */
public record PortRef(long guid, int port) {
    @Override
    public String toString() {
        return Guids.format(guid) + ":" + port;
    }
}
