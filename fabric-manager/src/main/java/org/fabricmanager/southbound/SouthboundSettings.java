package org.fabricmanager.southbound;

import io.netty.handler.ssl.SslContext;

/**
 * How the daemon's southbound server listens, authenticates and times sessions out.
 *
 * @param bindAddress           address to listen on ({@code 0.0.0.0} for all)
 * @param port                  TCP port (0 = any free port)
 * @param maxFrameBytes         receive limit on a frame's length
 * @param handshakeTimeoutMs    HELLO to PORT_INFO must take less than this, counted from the TCP connect on a
 *                              plaintext daemon and from the TLS handshake's completion on a secure one
 * @param echoIntervalMs        ECHO_REQUEST period once a session is active
 * @param idleTimeoutMs         a session that sends nothing for this long is closed
 * @param ioThreads             Netty worker threads
 * @param tls                   the server's TLS context (mutual TLS, see {@code org.fabricmanager.pki.TlsContexts});
 *                              {@code null} = plaintext, any peer may claim any GUID
 * @param incarnationAheadMs    HELLOs whose incarnation lies further ahead of the daemon's clock are refused
 * @param managerTerm           the Raft term carried in HELLO_REPLY and LFT_COMMIT (0: no hot-standby group)
 * @param tlsAdmission          how TLS handshakes are paced and bounded (secure daemons only)
 */
public record SouthboundSettings(String bindAddress, int port, int maxFrameBytes, int handshakeTimeoutMs,
                                 int echoIntervalMs, int idleTimeoutMs, int ioThreads, SslContext tls,
                                 long incarnationAheadMs, long managerTerm, TlsAdmissionLimits tlsAdmission) {
    public SouthboundSettings {
        if (tlsAdmission == null) {
            tlsAdmission = TlsAdmissionLimits.DEFAULTS;
        }
        if (managerTerm < 0) {
            throw new IllegalArgumentException("managerTerm " + managerTerm + " is negative");
        }
        if (maxFrameBytes < Protocol.MIN_MAX_FRAME || maxFrameBytes > Protocol.MAX_MAX_FRAME) {
            throw new IllegalArgumentException("maxFrameBytes " + maxFrameBytes + " outside [" + Protocol.MIN_MAX_FRAME
                    + ", " + Protocol.MAX_MAX_FRAME + "]");
        }
        if (incarnationAheadMs < 0) {
            throw new IllegalArgumentException("incarnationAheadMs " + incarnationAheadMs + " is negative");
        }
    }

    /** Settings with the default TLS admission limits. */
    public SouthboundSettings(String bindAddress, int port, int maxFrameBytes, int handshakeTimeoutMs,
                              int echoIntervalMs, int idleTimeoutMs, int ioThreads, SslContext tls,
                              long incarnationAheadMs, long managerTerm) {
        this(bindAddress, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs, ioThreads, tls,
                incarnationAheadMs, managerTerm, TlsAdmissionLimits.DEFAULTS);
    }

    /** Settings of a manager outside a hot-standby group (term 0: HELLO_REPLY and LFT_COMMIT carry no term). */
    public SouthboundSettings(String bindAddress, int port, int maxFrameBytes, int handshakeTimeoutMs,
                              int echoIntervalMs, int idleTimeoutMs, int ioThreads, SslContext tls, long incarnationAheadMs) {
        this(bindAddress, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs, ioThreads, tls,
                incarnationAheadMs, 0);
    }

    /** Plaintext settings with the default incarnation bound. */
    public SouthboundSettings(String bindAddress, int port, int maxFrameBytes, int handshakeTimeoutMs,
                              int echoIntervalMs, int idleTimeoutMs, int ioThreads) {
        this(bindAddress, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs, ioThreads, null,
                Protocol.DEFAULT_INCARNATION_AHEAD_MS);
    }

    /** These settings with other TLS admission limits. */
    public SouthboundSettings withTlsAdmission(TlsAdmissionLimits limits) {
        return new SouthboundSettings(bindAddress, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs,
                ioThreads, tls, incarnationAheadMs, managerTerm, limits);
    }

    /** True when agents must authenticate with mutual TLS. */
    public boolean secure() {
        return tls != null;
    }

    /** These settings with another TLS context ({@code null}: plaintext). */
    public SouthboundSettings withTls(SslContext context) {
        return new SouthboundSettings(bindAddress, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs,
                ioThreads, context, incarnationAheadMs, managerTerm, tlsAdmission);
    }

    /**
     * These settings for the active manager of a hot-standby group in Raft term {@code term}: HELLO_REPLY and
     * LFT_COMMIT carry it, so that agents refuse commits of a deposed manager (docs/protocol.md, section 3.5).
     */
    public SouthboundSettings withManagerTerm(long term) {
        return new SouthboundSettings(bindAddress, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs,
                ioThreads, tls, incarnationAheadMs, term, tlsAdmission);
    }

    /** These settings with another number of I/O threads. */
    public SouthboundSettings withIoThreads(int threads) {
        return new SouthboundSettings(bindAddress, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs,
                threads, tls, incarnationAheadMs, managerTerm);
    }
}
