package org.fabricmanager.agent;

import java.io.IOException;
import org.fabricmanager.southbound.PortCounters;

/**
 * Where an agent reads its ports' traffic and error counters when the daemon asks (PORT_COUNTERS_REQUEST,
 * {@code docs/protocol.md} section 3.17): the simulated switch's own counts ({@link SimulatedCounters}) or a Linux
 * switch's kernel statistics. Called on the agent's event loop, at most once per request; a source that blocks (a
 * kernel round trip) holds up only the agents that share the loop.
 */
@FunctionalInterface
public interface PortCounterSource {
    /**
     * The counters of ports {@code firstPort..lastPort} (within the switch's ports). Each counter only increases
     * during the agent's run.
     *
     * @throws IOException when they cannot be read now (the agent answers {@code ERROR COUNTERS_UNAVAILABLE})
     */
    PortCounters read(int firstPort, int lastPort) throws IOException;
}
