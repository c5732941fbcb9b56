package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.handler.ssl.OpenSsl;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.AgentDependencies;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.fabricmanager.testing.Await;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * An agent whose certificate or CA is another CA's is told so in plain words on both sides, with BoringSSL (which
 * otherwise says "General OpenSslEngine problem" and "TLSV1_ALERT_INTERNAL_ERROR") as with the JDK's engine: the side
 * whose check refused names the certificate, its issuer and the CA it does not chain to (the daemon with the peer's
 * address), the refused side says that the other end refused its certificate.
 */
class TlsRefusalLogTest {
    private static final long GUID = 0x10L;

    private final CertificateAuthority fabricCa = CertificateAuthority.create("fabric", Duration.ofDays(1), Clock.systemUTC());
    private final CertificateAuthority otherCa = CertificateAuthority.create("other", Duration.ofDays(1), Clock.systemUTC());
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger("org.fabricmanager");
    private SouthboundServer server;
    private SwitchAgent agent;

    private final SouthboundListener listener = new SouthboundListener() {
        @Override
        public void helloReceived(SwitchSession session, Hello hello) {
            session.acceptHello(42);
        }

        @Override
        public void portInfoReceived(SwitchSession session, PortInfo info) {
            session.acknowledge(info.txid(), MessageType.PORT_INFO);
        }

        @Override
        public void portStatusReceived(SwitchSession session, PortStatus status) {
        }

        @Override
        public void sessionClosed(SwitchSession session, String reason) {
        }
    };

    @BeforeEach
    void capture() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.stop().syncUninterruptibly();
        }
        if (server != null) {
            server.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        logger.detachAppender(log);
    }

    private InetSocketAddress startServer(TlsProvider engine) throws Exception {
        IssuedCertificate daemon = fabricCa.issueDaemon(List.of(), List.of(), Duration.ofDays(1));
        TlsMaterial material = new TlsMaterial(List.of(daemon.certificate()), daemon.key(), List.of(fabricCa.certificate()));
        SouthboundSettings settings = new SouthboundSettings("127.0.0.1", 0, 4096, 5_000, 200, 5_000, 1)
                .withTls(TlsContexts.server(material, engine.engine(material)));
        server = new SouthboundServer(settings, listener, new SimpleMeterRegistry());
        return server.start();
    }

    private void startAgent(InetSocketAddress daemon, IssuedCertificate own, CertificateAuthority trusted,
                            TlsProvider engine) {
        AgentSettings settings = new AgentSettings(daemon, 4096, 2_000, 2_000, 20, 200)
                .withTls(new TlsMaterial(List.of(own.certificate()), own.key(), List.of(trusted.certificate())))
                .withTlsProvider(engine);
        agent = new SwitchAgent(GUID, "s1", 4, List.of(), settings, new AgentDependencies(group.next(), null, new Random(1)));
        agent.start().syncUninterruptibly();
    }

    /** The first WARN line that contains {@code text}, awaited. */
    private String line(String what, String text) {
        return Await.value(what, () -> log.list.stream().map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains(text)).findFirst().orElse(null), m -> m != null);
    }

    private static String name(CertificateAuthority ca) {
        return ca.certificate().getSubjectX500Principal().getName();
    }

    @ParameterizedTest(name = "{0} on both sides")
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void anAgentCertificateOfAnotherCaIsNamedByTheDaemonAndTheAgentIsToldItWasRefused(TlsProvider engine)
            throws Exception {
        RealParts.require(engine != TlsProvider.OPENSSL || OpenSsl.isAvailable(),
                "BoringSSL (netty-tcnative) does not load here: " + OpenSsl.unavailabilityCause());
        InetSocketAddress daemon = startServer(engine);
        // the agent trusts the fabric CA, but its own certificate is the other CA's
        IssuedCertificate own = otherCa.issueSwitch(GUID, "s1", Duration.ofDays(1));
        startAgent(daemon, own, fabricCa, engine);

        String refused = line("the daemon's rejection line", "does not chain to the fabric CA");
        assertThat(refused).contains("127.0.0.1:").contains("the peer's certificate '"
                        + own.certificate().getSubjectX500Principal().getName() + "' (issued by '" + name(otherCa) + "')")
                .contains("does not chain to the fabric CA ('" + name(fabricCa) + "')")
                .doesNotContain("General OpenSslEngine problem");
        String agentSide = line("the agent's line", "TLS handshake with the daemon failed");
        assertThat(agentSide).contains("the daemon refused our certificate").contains("issued by '" + name(otherCa) + "'")
                .doesNotContain("General OpenSslEngine problem");
    }

    @ParameterizedTest(name = "{0} on both sides")
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void anAgentOfAnotherPkiSaysTheDaemonsCertificateDoesNotChainToItsCa(TlsProvider engine) throws Exception {
        RealParts.require(engine != TlsProvider.OPENSSL || OpenSsl.isAvailable(),
                "BoringSSL (netty-tcnative) does not load here: " + OpenSsl.unavailabilityCause());
        InetSocketAddress daemon = startServer(engine);
        // a whole other PKI: the agent's certificate and the CA it trusts are the other CA's
        startAgent(daemon, otherCa.issueSwitch(GUID, "s1", Duration.ofDays(1)), otherCa, engine);

        String agentSide = line("the agent's line", "TLS handshake with the daemon failed");
        assertThat(agentSide).contains("the daemon's certificate '").contains("(issued by '" + name(fabricCa) + "')")
                .contains("does not chain to the CA this agent trusts ('" + name(otherCa) + "')")
                .doesNotContain("General OpenSslEngine problem");
        String daemonSide = line("the daemon's rejection line", "refused the handshake");
        assertThat(daemonSide).contains("127.0.0.1:").contains("does not trust the daemon's certificate");
    }
}
