package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslContext;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.fabricmanager.pki.KeyType;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.southbound.SouthboundSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon's southbound TLS context as {@code security.tlsProvider} selects its engine. */
class SouthboundSecurityTest {
    @TempDir
    Path dir;

    private DaemonConfig config(KeyType keyType, TlsProvider provider) {
        new PkiDirectory(dir).init("t", Duration.ofDays(1), List.of(), List.of(), Duration.ofDays(1), Clock.systemUTC(),
                keyType);
        return DaemonConfig.defaults().withSecurity(DaemonConfig.Security.pki(dir).withTlsProvider(provider));
    }

    @Test
    void autoServesAnEcdsaPkiWithBoringSsl() {
        assumeThat(OpenSsl.isAvailable()).isTrue();
        SouthboundSettings s = SouthboundSecurity.settings(config(KeyType.ECDSA_P256, TlsProvider.AUTO));
        assertThat(s.tls()).isInstanceOf(OpenSslContext.class);
        assertThat(s.tls().isServer()).isTrue();
    }

    @Test
    void jdkIsHonouredForAnEcdsaPki() {
        SouthboundSettings s = SouthboundSecurity.settings(config(KeyType.ECDSA_P256, TlsProvider.JDK));
        assertThat(s.tls()).isInstanceOf(JdkSslContext.class);
    }

    @Test
    void autoKeepsAnEd25519PkiOnTheJdkAndOpensslRefusesToStartWithIt() {
        DaemonConfig auto = config(KeyType.ED25519, TlsProvider.AUTO);
        assertThat(SouthboundSecurity.settings(auto).tls()).isInstanceOf(JdkSslContext.class);
        DaemonConfig openssl = auto.withSecurity(auto.security().withTlsProvider(TlsProvider.OPENSSL));
        assertThatThrownBy(() -> SouthboundSecurity.settings(openssl)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("security.tlsProvider").hasMessageContaining("Ed25519");
    }
}
