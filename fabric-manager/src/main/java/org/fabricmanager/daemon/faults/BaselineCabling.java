package org.fabricmanager.daemon.faults;

import java.util.HashMap;
import java.util.Map;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;

/**
 * The first routed fabric and its cabling, kept so that the views can name the link a down port had and place the
 * switches that died since on the status page. Set once, by the first routing; read by the views. Control thread only.
 */
final class BaselineCabling {
    /** The first routed fabric, kept with {@link #peers}. */
    private Fabric baseline;
    /** The peer GUID at (guid, port) in the first routed fabric, so a down port can name its link. */
    private final Map<Long, long[]> peers = new HashMap<>();

    /** Remembers the first routed fabric's cabling; later fabrics are ignored. */
    void remember(Fabric fabric) {
        if (!peers.isEmpty()) {
            return;
        }
        baseline = fabric;
        for (Link l : fabric.links()) {
            remember(l.a(), l.aPort(), l.b());
            remember(l.b(), l.bPort(), l.a());
        }
    }

    private void remember(long guid, int port, long peer) {
        long[] ports = peers.computeIfAbsent(guid, g -> new long[256]);
        if (port < ports.length) {
            ports[port] = peer;
        }
    }

    /** The first routed fabric ({@code null} before it). */
    Fabric fabric() {
        return baseline;
    }

    /** The peer GUID at (guid, port) in the first routed fabric (0: none). */
    long peer(long guid, int port) {
        long[] ports = peers.get(guid);
        return ports == null || port >= ports.length ? 0 : ports[port];
    }
}
