package org.fabricmanager.agent;

import java.net.InetSocketAddress;
import org.fabricmanager.southbound.Protocol;

/**
 * How an agent reaches the daemon and behaves when it cannot.
 *
 * @param daemon             the daemon's southbound address
 * @param maxFrameBytes      the agent's receive limit (announced in HELLO)
 * @param connectTimeoutMs   TCP connect timeout
 * @param handshakeTimeoutMs HELLO_REPLY must arrive within this after connecting
 * @param initialBackoffMs   first reconnection delay (before jitter)
 * @param maxBackoffMs       largest reconnection delay (before jitter)
 */
public record AgentSettings(InetSocketAddress daemon, int maxFrameBytes, int connectTimeoutMs, int handshakeTimeoutMs,
                            long initialBackoffMs, long maxBackoffMs) {

    /** Defaults of the Java agent (100 ms initial backoff, 5 s cap). */
    public static AgentSettings defaults(InetSocketAddress daemon) {
        return new AgentSettings(daemon, Protocol.DEFAULT_MAX_FRAME, 5_000, 10_000, 100, 5_000);
    }
}
