package org.fabricmanager.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Raft port's trust: manager certificates of the fabric CA only, never a switch's, never another CA's; each
 * refusal reported once, with its kind, and acceptance reported not at all.
 */
class ManagerPeerTrustTest {
    private static final CertificateAuthority FABRIC = CertificateAuthority.create("fabric", Duration.ofDays(1), Clock.systemUTC());
    private final List<String> refused = new ArrayList<>();
    private final ManagerPeerTrust trust = new ManagerPeerTrust(List.of(FABRIC.certificate()),
            (kind, chain, why) -> refused.add(kind + " " + chain[0].getSubjectX500Principal().getName()));

    @Test
    void acceptsADaemonCertificateOfTheFabricCaAsClientAndServer() {
        X509Certificate[] daemon = {FABRIC.issueDaemon(List.of(), List.of(), Duration.ofDays(1)).certificate()};
        assertThatCode(() -> trust.checkClientTrusted(daemon, "UNKNOWN")).doesNotThrowAnyException();
        assertThatCode(() -> trust.checkServerTrusted(daemon, "UNKNOWN")).doesNotThrowAnyException();
        assertThat(refused).isEmpty();
    }

    @Test
    void refusesASwitchCertificateOfTheFabricCa() {
        X509Certificate[] sw = {FABRIC.issueSwitch(0x0002c90300000001L, "leaf", Duration.ofDays(1)).certificate()};
        assertThatThrownBy(() -> trust.checkClientTrusted(sw, "UNKNOWN")).isInstanceOf(CertificateException.class)
                .hasMessageContaining("switch");
        assertThat(refused).singleElement().asString().startsWith("NOT_A_MANAGER CN=leaf,");
    }

    @Test
    void refusesADaemonCertificateOfAnotherCa() {
        CertificateAuthority other = CertificateAuthority.create("other", Duration.ofDays(1), Clock.systemUTC());
        X509Certificate[] daemon = {other.issueDaemon(List.of(), List.of(), Duration.ofDays(1)).certificate()};
        assertThatThrownBy(() -> trust.checkClientTrusted(daemon, "UNKNOWN")).isInstanceOf(CertificateException.class);
        assertThat(refused).hasSize(1).allMatch(r -> r.startsWith("UNTRUSTED "));
    }
}
