package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.pki.TlsMaterial;
import org.junit.jupiter.api.Test;

/**
 * A hot standby opens a new southbound server in the same registry after each term it led: each server's
 * handshake gauges are its own, not the first server's left behind.
 */
class StandbyMetersTest {
    @Test
    void aServerOpenedAgainInTheSameRegistryReportsItsOwnHandshakeGauges() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("t", Duration.ofDays(1), Clock.systemUTC());
        IssuedCertificate daemon = ca.issueDaemon(List.of(), List.of(), Duration.ofDays(1));
        SouthboundSettings settings = new SouthboundSettings("127.0.0.1", 0, 4096, 5_000, 200, 5_000, 1)
                .withTls(tls(new TlsMaterial(List.of(daemon.certificate()), daemon.key(), List.of(ca.certificate()))));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SouthboundServer first = SouthboundServer.redirecting(settings, () -> null, new ParkedHellos(1_000), registry);
        Gauge firstGauge = registry.get(SouthboundServer.HANDSHAKES_METER).tag("phase", "active").gauge();
        first.close();
        assertThat(registry.find(SouthboundServer.HANDSHAKES_METER).gauges()).as("removed with their server").isEmpty();
        SouthboundServer second = SouthboundServer.redirecting(settings, () -> null, new ParkedHellos(1_000), registry);
        try {
            Gauge secondGauge = registry.get(SouthboundServer.HANDSHAKES_METER).tag("phase", "active").gauge();
            assertThat(secondGauge).isNotSameAs(firstGauge);
            assertThat(registry.find(SouthboundServer.HANDSHAKES_METER).gauges()).hasSize(2);
        } finally {
            second.close();
        }
    }

    private static io.netty.handler.ssl.SslContext tls(TlsMaterial material) {
        return TlsContexts.server(material, org.fabricmanager.pki.TlsProvider.AUTO.engine(material));
    }
}
