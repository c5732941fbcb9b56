package org.fabricmanager.pki;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;

/**
 * The TLS engine one end of the southbound runs, as {@link TlsProvider#engine} chose it, and why: what the
 * start-up log line reports.
 *
 * @param provider {@link SslProvider#OPENSSL} or {@link SslProvider#JDK}
 * @param reason   the setting or fallback that chose it
 */
public record TlsEngine(SslProvider provider, String reason) {
    /** "OpenSSL (BoringSSL)" or "JDK (SunJSSE)", with the reason. */
    @Override
    public String toString() {
        String engine = provider == SslProvider.JDK ? "JDK (SunJSSE)" : "OpenSSL (" + OpenSsl.versionString() + ")";
        return engine + ", " + reason;
    }
}
