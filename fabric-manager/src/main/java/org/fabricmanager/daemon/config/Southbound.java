package org.fabricmanager.daemon.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.SouthboundSettings;
import org.fabricmanager.southbound.TlsAdmissionLimits;

/**
 * Where switch agents connect. With {@code enabled: false} the daemon has no southbound at all (an OpenSM-only site,
 * docs/opensm.md): no port is bound, no TLS file is read for it, and the other options are not used.
 */
public record Southbound(String bind, int port, int maxFrameBytes, int handshakeTimeoutMs, int echoIntervalMs,
                         int idleTimeoutMs, int ioThreads, int tlsHandshakesAtOnce, int tlsQueueLength,
                         int tlsQueueWaitMs, int tlsHandshakeTimeoutMs, boolean enabled) {
    public Southbound {
        DaemonConfig.check("southbound.tlsHandshakesAtOnce", tlsHandshakesAtOnce, 1, 4_096);
        DaemonConfig.check("southbound.tlsQueueLength", tlsQueueLength, 0, 1_000_000);
        DaemonConfig.check("southbound.tlsQueueWaitMs", tlsQueueWaitMs, 100, 3_600_000);
        DaemonConfig.check("southbound.tlsHandshakeTimeoutMs", tlsHandshakeTimeoutMs, 100, 600_000);
        DaemonConfig.check("southbound.port", port, 0, 65535);
        DaemonConfig.check("southbound.maxFrameBytes", maxFrameBytes, Protocol.MIN_MAX_FRAME, Protocol.MAX_MAX_FRAME);
        DaemonConfig.check("southbound.handshakeTimeoutMs", handshakeTimeoutMs, 100, 600_000);
        DaemonConfig.check("southbound.echoIntervalMs", echoIntervalMs, 10, 600_000);
        DaemonConfig.check("southbound.idleTimeoutMs", idleTimeoutMs, 50, 3_600_000);
        DaemonConfig.check("southbound.ioThreads", ioThreads, 1, 256);
        if (idleTimeoutMs <= echoIntervalMs) {
            throw new ConfigException("option southbound.idleTimeoutMs (" + idleTimeoutMs
                    + ") must be larger than southbound.echoIntervalMs (" + echoIntervalMs + ")");
        }
        if (bind == null || bind.isBlank()) {
            throw new ConfigException("option southbound.bind must not be empty");
        }
    }

    /** An enabled southbound with these options. */
    public Southbound(String bind, int port, int maxFrameBytes, int handshakeTimeoutMs, int echoIntervalMs,
                      int idleTimeoutMs, int ioThreads, int tlsHandshakesAtOnce, int tlsQueueLength, int tlsQueueWaitMs,
                      int tlsHandshakeTimeoutMs) {
        this(bind, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs, ioThreads, tlsHandshakesAtOnce,
                tlsQueueLength, tlsQueueWaitMs, tlsHandshakeTimeoutMs, true);
    }

    /** Options with the default TLS admission limits ({@link TlsAdmissionLimits#DEFAULTS}). */
    public Southbound(String bind, int port, int maxFrameBytes, int handshakeTimeoutMs, int echoIntervalMs,
                      int idleTimeoutMs, int ioThreads) {
        this(bind, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs, ioThreads,
                TlsAdmissionLimits.DEFAULTS);
    }

    private Southbound(String bind, int port, int maxFrameBytes, int handshakeTimeoutMs, int echoIntervalMs,
                       int idleTimeoutMs, int ioThreads, TlsAdmissionLimits tls) {
        this(bind, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs, ioThreads, tls.atOnce(),
                tls.queueLength(), tls.queueWaitMs(), tls.timeoutMs());
    }

    @JsonCreator
    public static Southbound of(@JsonProperty("bind") String bind, @JsonProperty("port") Integer port,
                                @JsonProperty("maxFrameBytes") Integer maxFrameBytes,
                                @JsonProperty("handshakeTimeoutMs") Integer handshakeTimeoutMs,
                                @JsonProperty("echoIntervalMs") Integer echoIntervalMs,
                                @JsonProperty("idleTimeoutMs") Integer idleTimeoutMs,
                                @JsonProperty("ioThreads") Integer ioThreads,
                                @JsonProperty("tlsHandshakesAtOnce") Integer tlsHandshakesAtOnce,
                                @JsonProperty("tlsQueueLength") Integer tlsQueueLength,
                                @JsonProperty("tlsQueueWaitMs") Integer tlsQueueWaitMs,
                                @JsonProperty("tlsHandshakeTimeoutMs") Integer tlsHandshakeTimeoutMs,
                                @JsonProperty("enabled") Boolean enabled) {
        TlsAdmissionLimits d = TlsAdmissionLimits.DEFAULTS;
        // loopback until the operator names the management address: never every interface by default
        return new Southbound(bind != null ? bind : "127.0.0.1", port != null ? port : 7654,
                maxFrameBytes != null ? maxFrameBytes : Protocol.DEFAULT_MAX_FRAME,
                handshakeTimeoutMs != null ? handshakeTimeoutMs : 10_000,
                echoIntervalMs != null ? echoIntervalMs : 2_000, idleTimeoutMs != null ? idleTimeoutMs : 10_000,
                ioThreads != null ? ioThreads : 2,
                tlsHandshakesAtOnce != null ? tlsHandshakesAtOnce : d.atOnce(),
                tlsQueueLength != null ? tlsQueueLength : d.queueLength(),
                tlsQueueWaitMs != null ? tlsQueueWaitMs : d.queueWaitMs(),
                tlsHandshakeTimeoutMs != null ? tlsHandshakeTimeoutMs : d.timeoutMs(), enabled == null || enabled);
    }

    /** How TLS handshakes are paced and bounded. */
    public TlsAdmissionLimits tlsAdmission() {
        return new TlsAdmissionLimits(tlsHandshakesAtOnce, tlsQueueLength, tlsQueueWaitMs, tlsHandshakeTimeoutMs);
    }

    /** These options with another port and bind address, the rest kept. */
    Southbound withAddress(String newBind, int newPort) {
        return new Southbound(newBind, newPort, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs,
                ioThreads, tlsHandshakesAtOnce, tlsQueueLength, tlsQueueWaitMs, tlsHandshakeTimeoutMs, enabled);
    }

    /** These settings with another keepalive period and idle timeout (checked as the file's are). */
    public Southbound withKeepalive(int newEchoIntervalMs, int newIdleTimeoutMs) {
        return new Southbound(bind, port, maxFrameBytes, handshakeTimeoutMs, newEchoIntervalMs, newIdleTimeoutMs,
                ioThreads, tlsHandshakesAtOnce, tlsQueueLength, tlsQueueWaitMs, tlsHandshakeTimeoutMs, enabled);
    }

    /** These settings with the southbound on or off ({@code southbound.enabled}). */
    public Southbound withEnabled(boolean on) {
        return new Southbound(bind, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs, ioThreads,
                tlsHandshakesAtOnce, tlsQueueLength, tlsQueueWaitMs, tlsHandshakeTimeoutMs, on);
    }

    /** The southbound server's settings. */
    public SouthboundSettings settings() {
        return new SouthboundSettings(bind, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs,
                ioThreads).withTlsAdmission(tlsAdmission());
    }
}
