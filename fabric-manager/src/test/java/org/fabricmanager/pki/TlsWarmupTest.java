package org.fabricmanager.pki;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hot standby's TLS warm-up: real handshakes through the southbound's own context builders, on either engine,
 * with the daemon's certificate on both ends; a daemon certificate that cannot act as the client stops it at once
 * with the reason, rather than failing the rehearsal.
 */
class TlsWarmupTest {
    private static final CertificateAuthority CA = CertificateAuthority.create("fabric", Duration.ofDays(1), Clock.systemUTC());

    @Test
    void runsTheHandshakesAskedOnEitherEngine() {
        IssuedCertificate d = CA.issueDaemon(List.of("localhost"), List.of(), Duration.ofDays(1));
        TlsMaterial daemon = new TlsMaterial(List.of(d.certificate()), d.key(), List.of(CA.certificate()));
        for (TlsProvider provider : List.of(TlsProvider.AUTO, TlsProvider.JDK)) {
            TlsWarmup.Result r = TlsWarmup.run(daemon, provider.engine(daemon), 25, 60_000);
            assertThat(r.failure()).as(provider + ": failure").isNull();
            assertThat(r.handshakes()).as(provider + ": handshakes").isEqualTo(25);
        }
    }

    @Test
    void aCertificateForTheServerPurposeAloneStopsItAtTheFirstHandshake() {
        // a switch's certificate names the client purpose alone: the mirror case, which the client refuses as a server
        IssuedCertificate sw = CA.issueSwitch(0x0002c90300000001L, "leaf-1", Duration.ofDays(1));
        TlsMaterial material = new TlsMaterial(List.of(sw.certificate()), sw.key(), List.of(CA.certificate()));
        TlsWarmup.Result r = TlsWarmup.run(material, TlsProvider.AUTO.engine(material), 25, 60_000);
        assertThat(r.handshakes()).isZero();
        assertThat(r.failure()).isNotNull();
    }

    @Test
    void theBudgetEndsIt() {
        IssuedCertificate d = CA.issueDaemon(List.of(), List.of(), Duration.ofDays(1));
        TlsMaterial daemon = new TlsMaterial(List.of(d.certificate()), d.key(), List.of(CA.certificate()));
        TlsWarmup.Result r = TlsWarmup.run(daemon, TlsProvider.AUTO.engine(daemon), 1_000_000, 0);
        assertThat(r.handshakes()).as("no time given, no handshake").isZero();
        assertThat(r.failure()).isNull();
    }
}
