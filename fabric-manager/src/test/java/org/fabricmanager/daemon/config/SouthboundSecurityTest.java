package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
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
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The daemon's southbound TLS context as {@code security.tlsProvider} selects its engine. */
class SouthboundSecurityTest {
    @TempDir
    Path dir;

    private DaemonConfig config(KeyType keyType, TlsProvider provider) {
        new PkiDirectory(dir).init("t", Duration.ofDays(1), List.of(), List.of(), Duration.ofDays(1), Clock.systemUTC(),
                keyType);
        return DaemonConfig.defaults().withSecurity(Security.pki(dir).withTlsProvider(provider));
    }

    @Test
    void autoServesAnEcdsaPkiWithBoringSsl() {
        RealParts.require(OpenSsl.isAvailable(), "BoringSSL (netty-tcnative) does not load here: "
                + OpenSsl.unavailabilityCause());
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

    /** Without TLS the daemon warns at every start, naming where agents reach it; port 0 is not known before the bind. */
    @Test
    void thePlaintextWarningNamesTheSouthboundOrSaysItsPortIsChosenAtStart() {
        DaemonConfig plaintext = DaemonConfig.defaults().withSecurity(Security.plaintext())
                .withSouthboundBind("127.0.0.1");
        assertThat(plaintextWarning(plaintext.withPorts(7011, null))).contains("any host that can reach 127.0.0.1:7011 can")
                .contains("WITHOUT TLS");
        assertThat(plaintextWarning(plaintext.withPorts(0, null)))
                .contains("any host that can reach 127.0.0.1 on the port chosen at start can").doesNotContain(":0 ");
    }

    private static String plaintextWarning(DaemonConfig config) {
        Logger logger = (Logger) LoggerFactory.getLogger(SouthboundSecurity.class);
        Level before = logger.getLevel();
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        logger.setLevel(Level.WARN);
        try {
            assertThat(SouthboundSecurity.settings(config).tls()).isNull();
        } finally {
            logger.detachAppender(lines);
            logger.setLevel(before);
        }
        assertThat(lines.list).hasSize(1);
        assertThat(lines.list.get(0).getLevel()).isEqualTo(Level.WARN);
        return lines.list.get(0).getFormattedMessage();
    }
}
