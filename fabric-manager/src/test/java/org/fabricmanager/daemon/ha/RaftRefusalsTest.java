package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.ManagerPeerTrust.Refusal;
import org.junit.jupiter.api.Test;

/**
 * A flood of refused Raft peers is counted exactly and logged at most once per interval, each line with the counts
 * since the previous one, so that a host dialling the Raft port in a loop cannot fill the disk with log lines.
 */
class RaftRefusalsTest {
    private static final CertificateAuthority CA = CertificateAuthority.create("fabric", Duration.ofDays(1), Clock.systemUTC());
    private static final X509Certificate[] SWITCH = {CA.issueSwitch(0x0002c90300000001L, "leaf-1", Duration.ofDays(1)).certificate()};

    private long nowMs = 1_000_000;
    private final List<String> lines = new ArrayList<>();
    private final RaftRefusals refusals = new RaftRefusals(() -> nowMs, lines::add);

    @Test
    void aFloodIsCountedExactlyAndLoggedOncePerInterval() {
        for (int i = 0; i < 20_000; i++) {
            refusals.refused(i % 4 == 0 ? Refusal.UNTRUSTED : Refusal.NOT_A_MANAGER, SWITCH, new CertificateException("no"));
            nowMs += 5; // 100 s of refusals, one each 5 ms
        }
        assertThat(refusals.count(Refusal.UNTRUSTED)).isEqualTo(5_000);
        assertThat(refusals.count(Refusal.NOT_A_MANAGER)).isEqualTo(15_000);
        assertThat(lines).as("one line per 10 s over 100 s").hasSize(10);
        assertThat(lines.get(0)).contains("1 untrusted").contains("'CN=leaf-1,").contains("fabric.ha.rejected");
        // every later line sums the interval's refusals: 2,000 a line, a quarter of them untrusted
        assertThat(lines.get(1)).contains("500 untrusted").contains("1500 not-a-manager");
    }

    @Test
    void aPeerWithoutACertificateIsNamedAsSuch() {
        refusals.refused(Refusal.UNTRUSTED, new X509Certificate[0], new CertificateException("empty chain"));
        assertThat(lines).singleElement().asString().contains("no certificate").contains("empty chain");
    }
}
