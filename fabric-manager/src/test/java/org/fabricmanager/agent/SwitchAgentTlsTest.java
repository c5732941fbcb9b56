package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.southbound.MessageType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The agent's side of mutual TLS: it says HELLO to the daemon's certificate, and never to a peer that
 * presents another switch's certificate of the same fabric CA (a switch posing as the daemon).
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
