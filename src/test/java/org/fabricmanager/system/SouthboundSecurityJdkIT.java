package org.fabricmanager.system;

import org.fabricmanager.pki.TlsProvider;

/**
 * Every attack of {@link SouthboundSecurityIT} replayed with the daemon and the agents on the JDK's TLS engine
 * ({@code security.tlsProvider: jdk}, the fallback where BoringSSL does not load and for Ed25519 PKIs): the
 * refusals must not depend on the engine.
 */
class SouthboundSecurityJdkIT extends SouthboundSecurityIT {
    @Override
    TlsProvider provider() {
        return TlsProvider.JDK;
    }
}
