package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.nio.NioEventLoopGroup;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.TestCertificates;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.southbound.MessageType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The agent's side of mutual TLS: it says HELLO to the daemon's certificate, and never to a peer that
 * presents another switch's certificate of the same fabric CA (a switch posing as the daemon), nor a certificate
 * naming the daemon that is not for TLS server authentication (no extended key usage, or clientAuth only).
 */
class SwitchAgentTlsTest {
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);
    private final CertificateAuthority ca = CertificateAuthority.create("t", Duration.ofDays(1), Clock.systemUTC());

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void theAgentSaysHelloOnlyToTheDaemonsCertificate() throws Exception {
        IssuedCertificate daemon = ca.issueDaemon(List.of(), List.of(), Duration.ofDays(1));
        IssuedCertificate otherSwitch = ca.issueSwitch(0x99L, "s-other", Duration.ofDays(1));
        assertThat(firstFrameType(daemon)).as("a HELLO frame to the daemon").isEqualTo(MessageType.HELLO.code());
        assertThat(firstFrameType(otherSwitch)).as("nothing to a switch posing as the daemon").isEqualTo(-1);
    }

    @Test
    void theAgentRefusesADaemonCertificateWithoutServerAuthAndSaysWhy() throws Exception {
        IssuedCertificate noUsage = TestCertificates.daemon(ca);
        IssuedCertificate clientOnly = TestCertificates.daemon(ca, KeyPurposeId.id_kp_clientAuth);
        IssuedCertificate normal = TestCertificates.daemon(ca, KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth);

        try (AgentLog log = new AgentLog()) {
            assertThat(firstFrameType(noUsage)).as("nothing to a daemon certificate without extended key usage")
                    .isEqualTo(-1);
            // TLS itself takes a server certificate without any usage: the agent's own check refuses it
            assertThat(log.warnings()).anySatisfy(w -> assertThat(w).contains("'" + subject(noUsage) + "'")
                    .contains("names urn:fabric:daemon but it has no extended key usage").contains("serverAuth")
                    .contains("pki issue --daemon"));
        }
        try (AgentLog log = new AgentLog()) {
            assertThat(firstFrameType(clientOnly)).as("nothing to a daemon certificate for clients only").isEqualTo(-1);
            // refused in the handshake already (PKIX checks a server's usages when it has some), named all the same
            assertThat(log.warnings()).anySatisfy(w -> assertThat(w).contains("'" + subject(clientOnly) + "'")
                    .containsIgnoringCase("TLS server authentication"));
        }
        try (AgentLog log = new AgentLog()) {
            assertThat(firstFrameType(normal)).as("a HELLO to a daemon certificate with serverAuth")
                    .isEqualTo(MessageType.HELLO.code());
            assertThat(log.warnings()).isEmpty();
        }
    }

    private static String subject(IssuedCertificate c) {
        return c.certificate().getSubjectX500Principal().getName();
    }

    /** The WARN lines of the agent's logger while open. */
    private static final class AgentLog implements AutoCloseable {
        private final Logger logger = (Logger) LoggerFactory.getLogger(SwitchAgent.class);
        private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

        AgentLog() {
            lines.start();
            logger.addAppender(lines);
        }

        List<String> warnings() {
            synchronized (lines) {
                return lines.list.stream().filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
                        .map(ILoggingEvent::getFormattedMessage).toList();
            }
        }

        @Override
        public void close() {
            logger.detachAppender(lines);
            lines.stop();
        }
    }

    /** Runs a one-connection TLS server presenting {@code server}; returns the type of the agent's first frame, -1 for none. */
    private int firstFrameType(IssuedCertificate server) throws Exception {
        IssuedCertificate own = ca.issueSwitch(0x10L, "s1-0", Duration.ofDays(1));
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("k", server.key(), new char[0], new X509Certificate[]{server.certificate()});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, new char[0]);
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        try (SSLServerSocket listener = (SSLServerSocket) context.getServerSocketFactory().createServerSocket(0, 1,
                InetAddress.getLoopbackAddress())) {
            // a switch certificate has no serverAuth usage, so the JDK refuses it in the handshake; the agent
            // would also refuse any certificate not naming urn:fabric:daemon: either way it sends nothing
            listener.setNeedClientAuth(true);
            CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> {
                try (SSLSocket s = (SSLSocket) listener.accept()) {
                    s.setSoTimeout(3_000);
                    InputStream in = s.getInputStream();
                    byte[] header = in.readNBytes(5); // length (4), type (1)
                    return header.length == 5 ? header[4] & 0xff : -1;
                } catch (Exception e) {
                    return -1;
                }
            });
            AgentSettings settings = new AgentSettings(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    listener.getLocalPort()), 65_536, 2_000, 5_000, 10_000, 10_000)
                    .withTls(new TlsMaterial(List.of(own.certificate()), own.key(), List.of(ca.certificate())));
            SwitchAgent agent = new SwitchAgent(0x10L, "s1-0", 4, List.of(), settings, new AgentDependencies(group.next(), null, new Random(1)));
            agent.start().syncUninterruptibly();
            try {
                return first.get(10, TimeUnit.SECONDS);
            } finally {
                agent.stop().syncUninterruptibly();
            }
        }
    }
}
