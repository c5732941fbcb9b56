package org.fabricmanager.pki;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.security.cert.X509Certificate;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Which TLS engine the southbound uses ({@code security.tlsProvider} on the daemon, {@code --tls-provider} of
 * {@code simulate} and {@code demo}):
 * <ul>
 *   <li>{@code openssl}: Netty's OpenSSL engine over the BoringSSL of netty-tcnative, linked into the jar for
 *       linux-x86_64. Key exchange and signatures run natively: a full handshake costs the daemon a fraction
 *       of the JDK's (docs/performance.md, "Mutual TLS"). BoringSSL offers no Ed25519 signatures in TLS, so it needs a PKI
 *       of ECDSA (or RSA) keys: {@code pki init} makes ECDSA P-256 by default.</li>
 *   <li>{@code jdk}: the JDK's own TLS 1.3 (SunJSSE), on any platform and with any key type.</li>
 *   <li>{@code auto} (the default): {@code openssl} when the native library loads and no key or trusted CA
 *       of this end is Ed25519, else {@code jdk}.</li>
 * </ul>
 * The choice is made per end from what that end holds: its own key must be one the engine signs with, and a
 * trust bundle that still holds an Ed25519 CA (a PKI made by an earlier release, or a rotation away from
 * one) means peers may present Ed25519 certificates that BoringSSL cannot check. Either engine verifies the
 * peer's chain against the same CA bundle with the JDK's PKIX trust manager, speaks TLS 1.3 only and requires
 * the peer's certificate, so the two ends may use different engines.
 */
public enum TlsProvider {
    AUTO, OPENSSL, JDK;

    /** The spelling in configuration files and on the command line. */
    public String option() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The provider named {@code text} ({@code auto}, {@code openssl} or {@code jdk}, any case). */
    public static TlsProvider parse(String text) {
        for (TlsProvider p : values()) {
            if (p.option().equalsIgnoreCase(text.trim())) {
                return p;
            }
        }
        throw new PkiException("unknown TLS provider '" + text + "' (auto, openssl or jdk)");
    }

    /**
     * The engine this setting selects for an end holding {@code material}.
     *
     * @throws PkiException for {@code openssl} when the native library does not load here, or when the
     *                      material holds an Ed25519 key or CA
     */
    public TlsEngine engine(TlsMaterial material) {
        String ed25519 = ed25519In(material);
        return switch (this) {
            case JDK -> new TlsEngine(SslProvider.JDK, "security.tlsProvider: jdk");
            case OPENSSL -> {
                if (!OpenSsl.isAvailable()) {
                    throw new PkiException("TLS provider openssl: the native OpenSSL engine (netty-tcnative, BoringSSL) does "
                            + "not load on this host: " + OpenSsl.unavailabilityCause() + "; use auto or jdk");
                }
                if (ed25519 != null) {
                    throw new PkiException("TLS provider openssl: " + ed25519 + " is Ed25519, which BoringSSL does not "
                            + "sign or check in TLS; use jdk, or a PKI of ECDSA P-256 keys (pki init --key-type ecdsa-p256, "
                            + "docs/security.md)");
                }
                yield new TlsEngine(SslProvider.OPENSSL, "security.tlsProvider: openssl");
            }
            case AUTO -> {
                if (!OpenSsl.isAvailable()) {
                    yield new TlsEngine(SslProvider.JDK, "auto: the native OpenSSL engine does not load here ("
                            + OpenSsl.unavailabilityCause() + ")");
                }
                if (ed25519 != null) {
                    yield new TlsEngine(SslProvider.JDK, "auto: " + ed25519 + " is Ed25519, which BoringSSL does not offer");
                }
                yield new TlsEngine(SslProvider.OPENSSL, "auto");
            }
        };
    }

    /** Names the first Ed25519 key of {@code material} (own key, own chain, trusted CAs), or {@code null}. */
    private static String ed25519In(TlsMaterial material) {
        if (KeyType.of(material.key()).filter(t -> t == KeyType.ED25519).isPresent()) {
            return "the private key of '" + material.certificate().getSubjectX500Principal().getName() + "'";
        }
        return Stream.concat(material.chain().stream(), material.trusted().stream())
                .filter(c -> KeyType.of(c.getPublicKey()).filter(t -> t == KeyType.ED25519).isPresent())
                .map(X509Certificate::getSubjectX500Principal)
                .map(p -> "the key of '" + p.getName() + "'")
                .findFirst().orElse(null);
    }
}
