package org.fabricmanager.daemon;

import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.SouthboundSecurity;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.daemon.store.TicketKeyStore;
import org.fabricmanager.southbound.SouthboundListener;
import org.fabricmanager.southbound.SouthboundServer;
import org.fabricmanager.southbound.SouthboundSettings;

/**
 * The running daemon's southbound port, where agents connect: its security settings (TLS files read and checked, or
 * the plaintext WARN), the session-ticket keys' rotation of a secure port, and the bound {@link SouthboundServer}.
 * A daemon with {@code southbound.enabled: false} opens none of it.
 */
final class SouthboundPort implements AutoCloseable {
    private final SouthboundServer server;
    /** Rotates the session-ticket keys (secure ports on BoringSSL), {@code null} otherwise. */
    private final TicketKeyRotation tickets;
    /** The configured host with the bound port (0 configured: the port chosen). */
    private final InetSocketAddress address;

    private SouthboundPort(SouthboundServer server, TicketKeyRotation tickets, InetSocketAddress address) {
        this.server = server;
        this.tickets = tickets;
        this.address = address;
    }

    /**
     * Reads the security settings, installs the stored session-ticket keys and binds the port.
     *
     * @param managerTerm the Raft term sent to agents (0: no hot-standby group)
     * @throws org.fabricmanager.daemon.config.ConfigException for unusable TLS files or a port that cannot be bound
     */
    static SouthboundPort open(DaemonConfig config, long managerTerm, StateFiles files, SouthboundListener sessions,
                               MeterRegistry registry) throws InterruptedException {
        SouthboundSettings settings = SouthboundSecurity.settings(config).withManagerTerm(managerTerm);
        TicketKeyRotation tickets = null;
        SouthboundServer server = null;
        try {
            if (settings.secure()) {
                // before listening: the first agents must resume with the keys of the previous run (or leader)
                tickets = TicketKeyRotation.start(new TicketKeyStore(config.state().path(), files), settings.tls(),
                        SouthboundSecurity.trusted(config.security()), System::currentTimeMillis);
            }
            server = new SouthboundServer(settings, sessions, registry);
            InetSocketAddress bound = FabricManagerDaemon.bind("southbound", config.southbound().bind(),
                    config.southbound().port(), server::start);
            // report the configured host (a wildcard binds as "0:0:0:0:0:0:0:0" on dual-stack hosts)
            return new SouthboundPort(server, tickets,
                    InetSocketAddress.createUnresolved(config.southbound().bind(), bound.getPort()));
        } catch (RuntimeException | InterruptedException e) {
            new SouthboundPort(server, tickets, null).close();
            throw e;
        }
    }

    /** Where agents connect. */
    InetSocketAddress address() {
        return address;
    }

    /** Stops accepting, closes every session, then stops the rotation. */
    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        if (tickets != null) {
            tickets.close();
        }
    }
}
