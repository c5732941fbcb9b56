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
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.KeyType;
import org.fabricmanager.pki.PemFiles;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.TestCertificates;
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

    /** Agents refuse a daemon certificate that is not for TLS server authentication: the daemon refuses to start with one. */
    @Test
    void aDaemonCertificateWithoutServerAuthIsRefusedAtStartNamingTheFileAndWhatIsMissing() throws Exception {
        CertificateAuthority ca = new PkiDirectory(dir).init("t", Duration.ofDays(1), List.of(), List.of(),
                Duration.ofDays(1), Clock.systemUTC(), KeyType.ECDSA_P256);
        assertThat(SouthboundSecurity.settings(DaemonConfig.defaults().withSecurity(Security.pki(dir))).secure())
                .as("pki issue --daemon's certificate serves").isTrue();
        DaemonConfig noUsage = oddDaemon(TestCertificates.daemon(ca), "none");
        assertThatThrownBy(() -> SouthboundSecurity.settings(noUsage)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(noUsage.security().certificatePath().toString())
                .hasMessageContaining("CN=odd daemon").hasMessageContaining("no extended key usage")
                .hasMessageContaining("serverAuth").hasMessageContaining("pki issue --daemon");
        DaemonConfig clientOnly = oddDaemon(TestCertificates.daemon(ca, KeyPurposeId.id_kp_clientAuth), "client");
        assertThatThrownBy(() -> SouthboundSecurity.settings(clientOnly)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(clientOnly.security().certificatePath().toString())
                .hasMessageContaining("lacks serverAuth");
    }

    /** A configuration naming {@code daemon}'s certificate and key, written as files NAME.crt and NAME.key. */
    private DaemonConfig oddDaemon(IssuedCertificate daemon, String name) {
        Path cert = dir.resolve(name + ".crt");
        Path key = dir.resolve(name + ".key");
        PemFiles.writeCertificates(cert, List.of(daemon.certificate()));
        PemFiles.writePrivateKey(key, daemon.key());
        return DaemonConfig.defaults().withSecurity(new Security(false, null, cert.toString(), key.toString(),
                dir.resolve(PkiDirectory.CA_CERT).toString(), 60_000, TlsProvider.JDK));
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
