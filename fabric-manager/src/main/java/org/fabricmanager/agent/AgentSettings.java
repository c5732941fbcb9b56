package org.fabricmanager.agent;

import java.net.InetSocketAddress;
import java.util.List;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.southbound.Protocol;

/**
 * How an agent reaches the daemon, proves which switch it is, and behaves when it cannot connect. The timeouts
 * and backoff limits ({@link Timing}) and the optional protocol features ({@link Features}) are grouped; their
 * accessors are repeated here, so that settings read flat.
 *
 * @param daemon        the daemon's southbound address
 * @param managers      every manager's southbound address, {@code daemon} first (hot-standby managers,
 *                      docs/operations.md): a standby's redirect ({@code ERROR NOT_LEADER}) is followed at
 *                      once; the agent tries the next one whenever a connection fails or ends before the
 *                      handshake completed
 * @param maxFrameBytes the agent's receive limit (announced in HELLO)
 * @param timing        the timeouts and the reconnection delays
 * @param tls           the switch's certificate (naming its GUID) and key, and the fabric CA(s) it trusts
 *                      the daemon by ({@link TlsMaterial#load}); {@code null} = plaintext, for daemons
 *                      run with {@code security.insecure: true}
 * @param tlsProvider   the TLS engine ({@link TlsProvider}: auto = BoringSSL when it loads and the switch's
 *                      PKI is not Ed25519, else the JDK's)
 * @param features      the optional protocol features the agent announces and speaks
 */
public record AgentSettings(InetSocketAddress daemon, List<InetSocketAddress> managers, int maxFrameBytes, Timing timing,
                            TlsMaterial tls, TlsProvider tlsProvider, Features features) {
    /** Default TLS handshake timeout: longer than the daemon's default queue wait plus handshake timeout (55 s). */
    public static final int DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS = 60_000;

    public AgentSettings {
        managers = managers == null || managers.isEmpty() ? List.of(daemon) : List.copyOf(managers);
        if (!managers.get(0).equals(daemon)) {
            throw new IllegalArgumentException("managers must start with the daemon address " + daemon);
        }
        if (tlsProvider == null) {
            tlsProvider = TlsProvider.AUTO;
        }
    }

    /**
     * How long an agent waits.
     *
     * @param connectTimeoutMs      TCP connect timeout
     * @param handshakeTimeoutMs    HELLO_REPLY must arrive within this after connecting (plaintext) or after the
     *                              TLS handshake completed
     * @param tlsHandshakeTimeoutMs the TLS handshake must complete within this after connecting. Generous on
     *                              purpose: the daemon runs a few handshakes at once and lets the other connections
     *                              wait unread (up to {@code southbound.tlsQueueWaitMs} plus
     *                              {@code tlsHandshakeTimeoutMs}, 55 s by default), and an agent that gives up while
     *                              it waits loses its place and its work
     * @param initialBackoffMs      first reconnection delay (before jitter)
     * @param maxBackoffMs          largest reconnection delay (before jitter)
     */
    public record Timing(int connectTimeoutMs, int handshakeTimeoutMs, int tlsHandshakeTimeoutMs, long initialBackoffMs,
                         long maxBackoffMs) {
        public Timing {
            if (tlsHandshakeTimeoutMs < 1) {
                throw new IllegalArgumentException("tlsHandshakeTimeoutMs must be positive, got " + tlsHandshakeTimeoutMs);
            }
        }
    }

    /**
     * The optional protocol features an agent announces in HELLO and speaks; each is off only to play an agent
     * that predates it.
     *
     * @param vcRules whether the agent announces and stages VC_RULES
     * @param lftRuns whether the agent announces and stages LFT_BLOCKS runs
     * @param portCounters whether the agent announces and answers port counters (when its plane has them)
     */
    public record Features(boolean vcRules, boolean lftRuns, boolean portCounters) {
        /** Every feature this agent library knows. */
        public static final Features ALL = new Features(true, true, true);
    }

    /** Plaintext settings for one manager, with every feature and the default TLS handshake timeout. */
    public AgentSettings(InetSocketAddress daemon, int maxFrameBytes, int connectTimeoutMs, int handshakeTimeoutMs,
                         long initialBackoffMs, long maxBackoffMs) {
        this(daemon, null, maxFrameBytes, new Timing(connectTimeoutMs, handshakeTimeoutMs,
                DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS, initialBackoffMs, maxBackoffMs), null, TlsProvider.AUTO, Features.ALL);
    }

    /** Defaults of the Java agent (100 ms initial backoff, 5 s cap), plaintext. */
    public static AgentSettings defaults(InetSocketAddress daemon) {
        return new AgentSettings(daemon, Protocol.DEFAULT_MAX_FRAME, 5_000, 10_000, 100, 5_000);
    }

    public int connectTimeoutMs() {
        return timing.connectTimeoutMs();
    }

    public int handshakeTimeoutMs() {
        return timing.handshakeTimeoutMs();
    }

    public int tlsHandshakeTimeoutMs() {
        return timing.tlsHandshakeTimeoutMs();
    }

    public long initialBackoffMs() {
        return timing.initialBackoffMs();
    }

    public long maxBackoffMs() {
        return timing.maxBackoffMs();
    }

    public boolean vcRules() {
        return features.vcRules();
    }

    public boolean lftRuns() {
        return features.lftRuns();
    }

    /** These settings with TLS material ({@code null}: plaintext). */
    public AgentSettings withTls(TlsMaterial material) {
        return new AgentSettings(daemon, managers, maxFrameBytes, timing, material, tlsProvider, features);
    }

    /** These settings with another TLS handshake timeout. */
    public AgentSettings withTlsHandshakeTimeoutMs(int timeoutMs) {
        Timing t = new Timing(timing.connectTimeoutMs(), timing.handshakeTimeoutMs(), timeoutMs,
                timing.initialBackoffMs(), timing.maxBackoffMs());
        return new AgentSettings(daemon, managers, maxFrameBytes, t, tls, tlsProvider, features);
    }

    /** These settings for an agent that predates VC rules: no feature bit in HELLO, VC_RULES refused. */
    public AgentSettings withoutVcRules() {
        return new AgentSettings(daemon, managers, maxFrameBytes, timing, tls, tlsProvider,
                new Features(false, features.lftRuns(), features.portCounters()));
    }

    /** These settings with every manager's address (the first one becomes {@link #daemon}). */
    public AgentSettings withManagers(List<InetSocketAddress> all) {
        if (all.isEmpty()) {
            throw new IllegalArgumentException("at least one manager address");
        }
        return new AgentSettings(all.get(0), all, maxFrameBytes, timing, tls, tlsProvider, features);
    }

    /** These settings for an agent that predates LFT_BLOCKS runs: no feature bit in HELLO, the message refused. */
    public AgentSettings withoutLftRuns() {
        return new AgentSettings(daemon, managers, maxFrameBytes, timing, tls, tlsProvider,
                new Features(features.vcRules(), false, features.portCounters()));
    }

    /** These settings for an agent that predates port counters: no feature bit in HELLO, the request refused. */
    public AgentSettings withoutPortCounters() {
        return new AgentSettings(daemon, managers, maxFrameBytes, timing, tls, tlsProvider,
                new Features(features.vcRules(), features.lftRuns(), false));
    }

    public boolean portCounters() {
        return features.portCounters();
    }

    /** These settings with another TLS engine setting. */
    public AgentSettings withTlsProvider(TlsProvider provider) {
        return new AgentSettings(daemon, managers, maxFrameBytes, timing, tls, provider, features);
    }

    /** The HELLO {@code features} these settings announce. */
    public int helloFeatures() {
        // every agent reads a standby's redirect from the fields of NOT_LEADER
        return Protocol.FEATURE_REDIRECT_FIELDS | (vcRules() ? Protocol.FEATURE_VC_RULES : 0)
                | (lftRuns() ? Protocol.FEATURE_LFT_RUNS : 0);
    }
}
