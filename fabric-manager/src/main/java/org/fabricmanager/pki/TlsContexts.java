package org.fabricmanager.pki;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSslCachingX509KeyManagerFactory;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.KeyManagerFactoryWrapper;
import io.netty.internal.tcnative.SSL;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * Builds the southbound's TLS contexts on the engine {@link TlsProvider} chose (the JDK's or BoringSSL): TLS 1.3
 * only, the peer's certificate required and checked against the fabric CA(s) alone (not the JVM's public
 * CAs), by the JDK's PKIX trust manager with either engine, whose refusals name what is wrong
 * ({@link ChainTrustManager}). The daemon requires a client certificate
 * ({@link ClientAuth#REQUIRE}); which switch it names is checked after the handshake. The REST API's HTTPS
 * stays on the JDK's engine: a few browser connections, where BoringSSL would save nothing worth a second path.
 */
public final class TlsContexts {
    /** The only protocol spoken on the southbound. */
    public static final String PROTOCOL = "TLSv1.3";
    /**
     * The peer an agent's TLS engine is made for, whichever manager it connects to: the client's session cache is
     * keyed by the peer given to {@code newHandler}, so one key for the whole group of managers lets an agent offer
     * the ticket of its last session to any of them (they share ticket keys, {@link SessionTicketKeys}): after a
     * failover or a daemon restart it resumes instead of making a full handshake. No dot, hence no SNI is sent
     * (the daemon uses none); the daemon's identity is checked from its certificate after the handshake, as before.
     */
    public static final String MANAGERS_PEER_HOST = "fabric-managers";
    /** Session tickets an agent keeps: those of its last handshake (BoringSSL sends two per handshake). */
    static final int AGENT_TICKETS = 2;
    /** The port half of the agents' session-cache key ({@link #MANAGERS_PEER_HOST}): a label, not a port dialled. */
    public static final int MANAGERS_PEER_PORT = 7654;

    private TlsContexts() {
    }

    /**
     * Whether the handshake just completed on {@code engine} resumed an earlier session (a TLS 1.3 ticket) rather than
     * authenticating both ends anew. Known for BoringSSL's engines only; {@code false} for the JDK's.
     */
    public static boolean resumed(SSLEngine engine) {
        if (engine instanceof ReferenceCountedOpenSslEngine e) {
            long ssl = e.sslPointer();
            return ssl != 0 && SSL.isSessionReused(ssl);
        }
        return false;
    }

    /** The daemon's context: presents the daemon's certificate, requires one from every agent. */
    public static SslContext server(TlsMaterial material, TlsEngine engine) {
        try {
            return options(SslContextBuilder.forServer(keyManager(material, engine.provider())), engine.provider())
                    .protocols(PROTOCOL)
                    .clientAuth(ClientAuth.REQUIRE)
                    .trustManager(new ChainTrustManager(material.trusted(), "the fabric CA"))
                    .build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new PkiException("cannot build the daemon's TLS context from '"
                    + material.certificate().getSubjectX500Principal().getName() + "': " + e.getMessage(), e);
        }
    }

    /**
     * The REST API's HTTPS context ({@code rest.tls}): presents {@code chain} (the server's certificate first)
     * with {@code key}, asks no client certificate (REST clients authenticate with the admin token), and
     * speaks TLS 1.3 or 1.2, which browsers, curl and the JDK's HTTP client all do.
     */
    public static SslContext https(List<X509Certificate> chain, PrivateKey key) {
        try {
            return SslContextBuilder.forServer(new FixedKeyManager(chain.toArray(X509Certificate[]::new), key))
                    .sslProvider(SslProvider.JDK)
                    .protocols(PROTOCOL, "TLSv1.2")
                    .build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new PkiException("cannot build the REST API's TLS context from '"
                    + chain.get(0).getSubjectX500Principal().getName() + "': " + e.getMessage(), e);
        }
    }

    /**
     * The one identity of {@code material}. For BoringSSL it is wrapped in Netty's caching factory: otherwise
     * the engine would turn the key and chain into PEM and parse them again natively at every handshake.
     */
    private static KeyManagerFactory keyManager(TlsMaterial material, SslProvider provider) {
        KeyManagerFactory identity = new KeyManagerFactoryWrapper(
                new FixedKeyManager(material.chain().toArray(X509Certificate[]::new), material.key()));
        return provider == SslProvider.JDK ? identity : new OpenSslCachingX509KeyManagerFactory(identity);
    }

    /**
     * The engine, and for BoringSSL its handshake's Java steps (the trust manager's check of the peer's
     * chain) handed out as delegated tasks, so that they run on the {@code SslHandler}'s executor (the
     * daemon's and the simulator's TLS pools) like the JDK engine's, not on the I/O thread.
     */
    private static SslContextBuilder options(SslContextBuilder builder, SslProvider provider) {
        builder.sslProvider(provider);
        if (provider != SslProvider.JDK) {
            builder.option(OpenSslContextOption.USE_TASKS, true);
        }
        return builder;
    }

    /**
     * An agent's context: presents the switch's certificate, trusts only the fabric CA(s), and keeps the session
     * tickets of its managers for {@link SessionTicketKeys#TICKET_LIFETIME_S} (make engines for
     * {@link #MANAGERS_PEER_HOST}, so that any manager of the group is offered them).
     */
    public static SslContext client(TlsMaterial material, TlsEngine engine) {
        try {
            return options(SslContextBuilder.forClient(), engine.provider())
                    .protocols(PROTOCOL)
                    // keep a ticket as long as a manager accepts it (Netty's default keeps it 5 minutes only, so that a
                    // failover after an hour of calm would not resume)
                    .sessionTimeout(SessionTicketKeys.TICKET_LIFETIME_S)
                    // only the tickets of the last handshake (a manager sends two): Netty's cache would keep every valid
                    // ticket and offer any of them, also those of keys no manager holds any more (a restart that lost its
                    // keys, a CA bundle changed), each costing a full handshake when picked
                    .sessionCacheSize(AGENT_TICKETS)
                    .keyManager(keyManager(material, engine.provider()))
                    .trustManager(new ChainTrustManager(material.trusted(), "the CA this agent trusts"))
                    .build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new PkiException("cannot build an agent's TLS context from '"
                    + material.certificate().getSubjectX500Principal().getName() + "': " + e.getMessage(), e);
        }
    }
}
