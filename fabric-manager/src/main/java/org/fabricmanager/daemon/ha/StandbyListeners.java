package org.fabricmanager.daemon.ha;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.TicketKeyRotation;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.SouthboundSecurity;
import org.fabricmanager.daemon.rest.RestHttps;
import org.fabricmanager.daemon.rest.RestListener;
import org.fabricmanager.daemon.rest.RestRejections;
import org.fabricmanager.daemon.rest.RestServer;
import org.fabricmanager.daemon.rest.StandbyEndpoints;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.daemon.store.TicketKeyStore;
import org.fabricmanager.pki.SessionTicketKeys;
import org.fabricmanager.southbound.ParkedHellos;
import org.fabricmanager.southbound.SouthboundServer;
import org.fabricmanager.southbound.SouthboundSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ports of a member that does not lead: the southbound port, where every HELLO is answered with the
 * active manager's address ({@link SouthboundServer#redirecting}) or, while no live leader is known, held
 * until one is ({@link ParkedHellos}), and the REST port, serving the group's
 * state and sending mutations to the leader ({@link RestServer#standby}). Same addresses, TLS and limits
 * as the manager's, so that agents, probes and operators need one address per member. With {@code opensm.socket},
 * OpenSM's plug-in's socket too ({@link OpenSmStandby}); with {@code southbound.enabled: false}, no southbound port,
 * as the manager has none. They are closed
 * before this member's manager binds the same ports and opened again when it stops leading.
 */
final class StandbyListeners implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StandbyListeners.class);
    /** A port that cannot be bound is tried again after this long. */
    private static final long RETRY_MS = 1_000;

    /** What a standby tells (see {@link StandbyEndpoints}), and the leader's southbound address. */
    interface Source {
        Map<String, Object> ha();

        String nodeId();

        String leaderId();

        String leaderRest();

        /** The active manager's southbound {@code HOST:PORT}, {@code null} while not known. */
        String leaderSouthbound();

        String standbyUnready();
    }

    private final DaemonConfig config;
    /** Whether this member serves agents at all ({@code southbound.enabled}). */
    private final boolean agents;
    private final Source source;
    /** OpenSM's plug-in's socket while a standby ({@code opensm.socket}), {@code null} when not configured. */
    private final OpenSmStandby opensm;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** Agents' HELLOs held while no live leader is known (kept across close and open). */
    private final ParkedHellos parked;
    private SouthboundServer southbound;
    /** The session-ticket keys of the standby's southbound, followed from the state directory (secure only). */
    private StoredTicketKeys tickets;
    private RestServer rest;
    private long nextTry;
    private String lastFailure = "";

    StandbyListeners(DaemonConfig config, Source source, HaNode node) {
        this.config = config;
        this.agents = config.southbound().enabled();
        this.source = source;
        this.opensm = config.opensm().enabled() ? OpenSmStandby.of(config.opensm(), config.ha().electionTimeoutMs(), node) : null;
        this.parked = new ParkedHellos(maxParkMs(config));
    }

    /**
     * How long a HELLO is held at most: three election timeouts (an election that needs longer has split
     * votes or no majority; the agent then walks its list once and is held again elsewhere), and less than
     * half the handshake timeout, so that the standby answers before an agent with the same timeout gives up.
     */
    static long maxParkMs(DaemonConfig config) {
        return Math.min(3L * config.ha().electionTimeoutMs(), config.southbound().handshakeTimeoutMs() / 2);
    }

    /**
     * Tells every held agent where the active manager serves; they connect there at once.
     *
     * @param leader the active manager's southbound {@code HOST:PORT}
     */
    void releaseParked(String leader) {
        if (leader != null && parked.size() > 0) {
            int n = parked.release(leader);
            LOG.debug("ha standby: {} held agents sent to {}", n, leader);
        }
    }

    /**
     * This member's manager started and serves agents on {@code southbound}: the held agents go there, and a leadership
     * that came here because OpenSM's master SM routes through this host is the manager's first event.
     */
    void managerStarted(FabricManagerDaemon daemon, String southbound) {
        releaseParked(southbound);
        String moved = opensm == null ? null : opensm.movedHere();
        if (moved != null) {
            daemon.recordEvent(Milestone.Kind.OPENSM_EVENT, moved);
        }
    }

    /**
     * Frees both ports (and OpenSM's socket) for this member's own manager and keeps the held agents' connections (close them
     * with {@link #releaseParked} and {@link #close} once the manager listens).
     */
    void stopAccepting() {
        if (opensm != null) {
            opensm.release();
        }
        if (southbound != null) {
            southbound.stopAccepting();
        }
        if (rest != null) {
            rest.close();
            rest = null;
        }
    }

    /** The registry {@code /metrics} shows on a standby. */
    MeterRegistry registry() {
        return registry;
    }

    /** Binds whatever is not bound yet; a failure is logged once per cause and retried after {@value #RETRY_MS} ms. */
    void open() throws InterruptedException {
        if (opensm != null) {
            opensm.open();
        }
        if ((southbound != null || !agents) && rest != null || System.currentTimeMillis() < nextTry) {
            return;
        }
        try {
            if (southbound == null && agents) {
                SouthboundSettings settings = SouthboundSecurity.settings(config);
                tickets = settings.secure() ? new StoredTicketKeys(settings.tls()) : null;
                if (tickets != null) {
                    tickets.refresh();
                }
                SouthboundServer s = SouthboundServer.redirecting(settings, source::leaderSouthbound, parked, registry);
                try {
                    s.start();
                } catch (RuntimeException e) {
                    s.close();
                    throw new IllegalStateException("southbound " + config.southbound().bind() + ":"
                            + config.southbound().port() + ": " + e.getMessage(), e);
                }
                southbound = s;
            }
            if (rest == null) {
                RestServer r = RestServer.standby(RestListener.of(config.rest(), RestHttps.context(config.rest().tls()),
                        new RestRejections(registry, 10_000, System::currentTimeMillis)), new Endpoints());
                try {
                    r.start();
                } catch (RuntimeException e) {
                    r.close();
                    throw new IllegalStateException("REST " + config.rest().bind() + ":" + config.rest().port() + ": "
                            + e.getMessage(), e);
                }
                rest = r;
            }
            lastFailure = "";
        } catch (RuntimeException e) {
            nextTry = System.currentTimeMillis() + RETRY_MS;
            if (!e.getMessage().equals(lastFailure)) {
                lastFailure = e.getMessage();
                LOG.warn("ha standby: cannot listen on {}; retrying every {} ms", e.getMessage(), RETRY_MS);
            }
        }
    }

    /**
     * Installs the session-ticket keys of the state directory on the standby's southbound when they changed (the
     * leader committed a rotation, or its first keys), so that agents resume with this member too: while it holds
     * them during an election, and once it leads.
     */
    void refreshTicketKeys() {
        if (tickets != null && southbound != null) {
            tickets.refresh();
        }
    }

    /** The keys of {@code ticket-keys} on one standby context: re-read when the file's time or size changed. */
    private final class StoredTicketKeys {
        private final SslContext context;
        private final TicketKeyStore store = new TicketKeyStore(config.state().path(), StateFiles.LOCAL);
        private final List<X509Certificate> trusted = SouthboundSecurity.trusted(config.security());
        private String seen = "";

        StoredTicketKeys(SslContext context) {
            this.context = context;
        }

        void refresh() {
            String now;
            try {
                Path f = store.file();
                now = Files.exists(f) ? Files.getLastModifiedTime(f) + "/" + Files.size(f) : "";
            } catch (IOException e) {
                now = "";
            }
            if (now.equals(seen)) {
                return;
            }
            seen = now;
            SessionTicketKeys keys = TicketKeyRotation.loadOrNone(store);
            if (keys.installOn(context, trusted)) {
                LOG.info("ha standby: southbound TLS session tickets under the group's {} key(s)", keys.secrets().size());
            }
        }
    }

    /** Unbinds both ports and OpenSM's socket (no effect when they are not bound). */
    @Override
    public void close() {
        if (opensm != null) {
            opensm.release();
        }
        if (southbound != null) {
            southbound.close();
            southbound = null;
            tickets = null;
        }
        if (rest != null) {
            rest.close();
            rest = null;
        }
        nextTry = 0;
    }

    /** The REST view of {@link Source}, with the metrics of this registry. */
    private final class Endpoints implements StandbyEndpoints {
        @Override
        public Map<String, Object> ha() {
            return source.ha();
        }

        @Override
        public String nodeId() {
            return source.nodeId();
        }

        @Override
        public String leaderId() {
            return source.leaderId();
        }

        @Override
        public String leaderRest() {
            return source.leaderRest();
        }

        @Override
        public String standbyUnready() {
            return source.standbyUnready();
        }

        @Override
        public String metrics() {
            return registry.scrape();
        }
    }
}
