package org.fabricmanager.pki;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSslCachingX509KeyManagerFactory;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.KeyManagerFactoryWrapper;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;

/**
 * Builds the southbound's TLS contexts on the engine {@link TlsProvider} chose (the JDK's or BoringSSL): TLS 1.3
 * only, the peer's certificate required and checked against the fabric CA(s) alone (not the JVM's public
 * CAs), by the JDK's PKIX trust manager with either engine. The daemon requires a client certificate
 * ({@link ClientAuth#REQUIRE}); which switch it names is checked after the handshake. The REST API's HTTPS
 * stays on the JDK's engine: a few browser connections, where BoringSSL would save nothing worth a second path.
 */
public final class TlsContexts {
    /** The only protocol spoken on the southbound. */
    public static final String PROTOCOL = "TLSv1.3";

    private TlsContexts() {
    }

    /** The daemon's context: presents the daemon's certificate, requires one from every agent. */
    public static SslContext server(TlsMaterial material, TlsEngine engine) {
        try {
            return options(SslContextBuilder.forServer(keyManager(material, engine.provider())), engine.provider())
                    .protocols(PROTOCOL)
                    .clientAuth(ClientAuth.REQUIRE)
                    .trustManager(material.trusted().toArray(X509Certificate[]::new))
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

    /** An agent's context: presents the switch's certificate, trusts only the fabric CA(s). */
    public static SslContext client(TlsMaterial material, TlsEngine engine) {
        try {
            return options(SslContextBuilder.forClient(), engine.provider())
                    .protocols(PROTOCOL)
                    .keyManager(keyManager(material, engine.provider()))
                    .trustManager(material.trusted().toArray(X509Certificate[]::new))
                    .build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new PkiException("cannot build an agent's TLS context from '"
                    + material.certificate().getSubjectX500Principal().getName() + "': " + e.getMessage(), e);
        }
    }
}
