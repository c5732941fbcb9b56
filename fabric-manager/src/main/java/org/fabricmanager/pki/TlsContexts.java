package org.fabricmanager.pki;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * Builds the southbound's TLS contexts: the JDK's TLS 1.3 only, the peer's certificate required and
 * checked against the fabric CA(s) alone (not the JVM's public CAs). The daemon requires a client
 * certificate ({@link ClientAuth#REQUIRE}); which switch it names is checked after the handshake.
 */
public final class TlsContexts {
    /** The only protocol spoken on the southbound. */
    public static final String PROTOCOL = "TLSv1.3";

    private TlsContexts() {
    }

    /** The daemon's context: presents the daemon's certificate, requires one from every agent. */
    public static SslContext server(TlsMaterial material) {
        try {
            return SslContextBuilder.forServer(keyManager(material))
                    .sslProvider(SslProvider.JDK)
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

    private static FixedKeyManager keyManager(TlsMaterial material) {
        return new FixedKeyManager(material.chain().toArray(X509Certificate[]::new), material.key());
    }

    /** An agent's context: presents the switch's certificate, trusts only the fabric CA(s). */
    public static SslContext client(TlsMaterial material) {
        try {
            return SslContextBuilder.forClient()
                    .sslProvider(SslProvider.JDK)
                    .protocols(PROTOCOL)
                    .keyManager(keyManager(material))
                    .trustManager(material.trusted().toArray(X509Certificate[]::new))
                    .build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new PkiException("cannot build an agent's TLS context from '"
                    + material.certificate().getSubjectX500Principal().getName() + "': " + e.getMessage(), e);
        }
    }
}
