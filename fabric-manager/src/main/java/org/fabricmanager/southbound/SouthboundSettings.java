package org.fabricmanager.southbound;

/**
 * How the daemon's southbound server listens and times sessions out.
 *
 * @param bindAddress        address to listen on ({@code 0.0.0.0} for all)
 * @param port               TCP port (0 = any free port)
 * @param maxFrameBytes      receive limit on a frame's length
 * @param handshakeTimeoutMs connect to PORT_INFO must take less than this
 * @param echoIntervalMs     ECHO_REQUEST period once a session is active
 * @param idleTimeoutMs      a session that sends nothing for this long is closed
 * @param ioThreads          Netty worker threads
 */
public record SouthboundSettings(String bindAddress, int port, int maxFrameBytes, int handshakeTimeoutMs,
                                 int echoIntervalMs, int idleTimeoutMs, int ioThreads) {
    public SouthboundSettings {
        if (maxFrameBytes < Protocol.MIN_MAX_FRAME || maxFrameBytes > Protocol.MAX_MAX_FRAME) {
            throw new IllegalArgumentException("maxFrameBytes " + maxFrameBytes + " outside [" + Protocol.MIN_MAX_FRAME
                    + ", " + Protocol.MAX_MAX_FRAME + "]");
        }
    }
}
