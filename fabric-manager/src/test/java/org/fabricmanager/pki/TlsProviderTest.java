package org.fabricmanager.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLException;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The choice of TLS engine ({@code security.tlsProvider}) and mutual TLS 1.3 between the two engines in every
 * pairing: client and server engines driven against each other in memory, so that the handshake's outcome,
 * not its timing, is what is checked.
 */
class TlsProviderTest {
    private final CertificateAuthority ecdsa = CertificateAuthority.create("t", Duration.ofDays(1), Clock.systemUTC());
    private final CertificateAuthority ed25519 = CertificateAuthority.create("t-ed", Duration.ofDays(1), Clock.systemUTC(),
            KeyType.ED25519);

    @Test
    void theBundledBoringSslLoadsOnLinuxX86_64() {
        assumeThat(System.getProperty("os.name").toLowerCase(Locale.ROOT)).contains("linux");
        assumeThat(System.getProperty("os.arch")).isIn("amd64", "x86_64");
        assertThat(OpenSsl.isAvailable()).as("netty-tcnative-boringssl-static: %s", OpenSsl.unavailabilityCause()).isTrue();
        assertThat(OpenSsl.versionString()).contains("BoringSSL");
    }

    @Test
    void autoChoosesOpenSslForAnEcdsaPkiAndTheJdkForAnEd25519One() {
        RealParts.require(OpenSsl.isAvailable(), "BoringSSL (netty-tcnative) does not load here: "
                + OpenSsl.unavailabilityCause());
        assertThat(TlsProvider.AUTO.engine(daemon(ecdsa)).provider()).isEqualTo(SslProvider.OPENSSL);
        assertThat(TlsProvider.AUTO.engine(agent(ecdsa, 0x10L)).provider()).isEqualTo(SslProvider.OPENSSL);
        TlsEngine old = TlsProvider.AUTO.engine(daemon(ed25519));
        assertThat(old.provider()).isEqualTo(SslProvider.JDK);
        assertThat(old.toString()).contains("JDK").contains("Ed25519");
    }

    @Test
    void aTrustBundleStillHoldingAnEd25519CaKeepsAutoOnTheJdk() {
        // rotating away from an Ed25519 CA: peers may still present Ed25519 certificates, which BoringSSL cannot check
        IssuedCertificate d = ecdsa.issueDaemon(List.of(), List.of(), Duration.ofDays(1));
        TlsMaterial rotating = new TlsMaterial(List.of(d.certificate()), d.key(),
                List.of(ecdsa.certificate(), ed25519.certificate()));
        assertThat(TlsProvider.AUTO.engine(rotating).provider()).isEqualTo(SslProvider.JDK);
        assertThatThrownBy(() -> TlsProvider.OPENSSL.engine(rotating)).isInstanceOf(PkiException.class)
                .hasMessageContaining("Ed25519").hasMessageContaining("t-ed");
    }

    @Test
    void opensslRefusesEd25519KeysAndJdkTakesAnything() {
        assertThatThrownBy(() -> TlsProvider.OPENSSL.engine(daemon(ed25519))).isInstanceOf(PkiException.class)
                .hasMessageContaining("BoringSSL");
        assertThat(TlsProvider.JDK.engine(daemon(ecdsa)).provider()).isEqualTo(SslProvider.JDK);
        assertThat(TlsProvider.JDK.engine(daemon(ed25519)).provider()).isEqualTo(SslProvider.JDK);
    }

    @Test
    void providersAreNamedAsInTheConfiguration() {
        assertThat(TlsProvider.parse("auto")).isEqualTo(TlsProvider.AUTO);
        assertThat(TlsProvider.parse("OpenSSL")).isEqualTo(TlsProvider.OPENSSL);
        assertThat(TlsProvider.parse("jdk").option()).isEqualTo("jdk");
        assertThatThrownBy(() -> TlsProvider.parse("boring")).isInstanceOf(PkiException.class)
                .hasMessageContaining("auto, openssl or jdk");
    }

    @ParameterizedTest(name = "daemon {0}, agent {1}")
    @CsvSource({"OPENSSL, OPENSSL", "OPENSSL, JDK", "JDK, OPENSSL", "JDK, JDK"})
    void mutualTls13WorksBetweenEveryPairOfEngines(TlsProvider daemonSide, TlsProvider agentSide) throws Exception {
        RealParts.require(OpenSsl.isAvailable(), "BoringSSL (netty-tcnative) does not load here: "
                + OpenSsl.unavailabilityCause());
        InMemoryHandshake h = handshake(daemon(ecdsa), daemonSide, agent(ecdsa, 0x10L), agentSide);
        assertThat(h.failure()).isNull();
        assertThat(h.server().getSession().getProtocol()).isEqualTo("TLSv1.3");
        X509Certificate agentCertificate = (X509Certificate) h.server().getSession().getPeerCertificates()[0];
        assertThat(FabricIdentity.switchGuid(agentCertificate)).hasValue(0x10L);
        X509Certificate daemonCertificate = (X509Certificate) h.client().getSession().getPeerCertificates()[0];
        assertThat(FabricIdentity.isDaemon(daemonCertificate)).isTrue();
        h.release();
    }

    @ParameterizedTest(name = "daemon {0}")
    @CsvSource({"OPENSSL", "JDK"})
    void anAgentCertificateFromAnotherCaIsRefusedByEitherEngine(TlsProvider daemonSide) throws Exception {
        RealParts.require(OpenSsl.isAvailable(), "BoringSSL (netty-tcnative) does not load here: "
                + OpenSsl.unavailabilityCause());
        CertificateAuthority rogue = CertificateAuthority.create("rogue", Duration.ofDays(1), Clock.systemUTC());
        IssuedCertificate forged = rogue.issueSwitch(0x10L, "s", Duration.ofDays(1));
        // the rogue agent trusts the real CA, so only the daemon's check of its chain can stop it
        TlsMaterial rogueAgent = new TlsMaterial(List.of(forged.certificate()), forged.key(), List.of(ecdsa.certificate()));
        InMemoryHandshake h = handshake(daemon(ecdsa), daemonSide, rogueAgent, TlsProvider.JDK);
        assertThat(h.failure()).isInstanceOf(SSLException.class);
        assertThatThrownBy(() -> h.server().getSession().getPeerCertificates()).as("the daemon accepted no agent")
                .isInstanceOf(javax.net.ssl.SSLPeerUnverifiedException.class);
        h.release();
    }

    @Test
    void anEd25519PkiStillHandshakesOnTheJdkEngine() throws Exception {
        InMemoryHandshake h = handshake(daemon(ed25519), TlsProvider.AUTO, agent(ed25519, 0x20L), TlsProvider.AUTO);
        assertThat(h.failure()).isNull();
        assertThat(FabricIdentity.switchGuid((X509Certificate) h.server().getSession().getPeerCertificates()[0]))
                .hasValue(0x20L);
        h.release();
    }

    private static TlsMaterial daemon(CertificateAuthority ca) {
        IssuedCertificate d = ca.issueDaemon(List.of(), List.of(), Duration.ofDays(1));
        return new TlsMaterial(List.of(d.certificate()), d.key(), List.of(ca.certificate()));
    }

    private static TlsMaterial agent(CertificateAuthority ca, long guid) {
        IssuedCertificate s = ca.issueSwitch(guid, "s", Duration.ofDays(1));
        return new TlsMaterial(List.of(s.certificate()), s.key(), List.of(ca.certificate()));
    }

    private static InMemoryHandshake handshake(TlsMaterial daemon, TlsProvider daemonSide, TlsMaterial agent,
                                               TlsProvider agentSide) {
        return InMemoryHandshake.run(TlsContexts.server(daemon, daemonSide.engine(daemon)),
                TlsContexts.client(agent, agentSide.engine(agent)));
    }
}
