package org.fabricmanager.pki;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.OpenSslSessionTicketKey;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rotation and derivation of the managers' session-ticket keys: a new secret every {@link SessionTicketKeys#ROTATE_MS},
 * each kept as long as a ticket it sealed may be presented, and keys derived per trust bundle.
 */
class SessionTicketKeysTest {
    private static final long T0 = 1_700_000_000_000L;
    private final SecureRandom random = new SecureRandom();

    @Test
    void aNewSecretIsDueWhenThereIsNoneOrTheNewestIsOld() {
        assertThat(SessionTicketKeys.none().rotationDue(T0)).isTrue();
        SessionTicketKeys k = SessionTicketKeys.none().rotated(T0, random);
        assertThat(k.rotationDue(T0 + SessionTicketKeys.ROTATE_MS - 1)).isFalse();
        assertThat(k.rotationDue(T0 + SessionTicketKeys.ROTATE_MS)).isTrue();
        assertThat(k.nextRotationMs(T0)).isEqualTo(T0 + SessionTicketKeys.ROTATE_MS);
        // a clock set back by more than a rotation: rotate rather than wait for the clock to catch up
        assertThat(k.rotationDue(T0 - SessionTicketKeys.ROTATE_MS - 1)).isTrue();
    }

    @Test
    void aSecretIsKeptAsLongAsATicketItSealedIsAccepted() {
        SessionTicketKeys k = SessionTicketKeys.none();
        long t = T0;
        for (int i = 0; i < 40; i++, t += SessionTicketKeys.ROTATE_MS) {
            k = k.rotated(t, random);
            long now = t;
            assertThat(k.secrets()).allMatch(s -> now - s.createdMs() < SessionTicketKeys.KEEP_MS);
            assertThat(k.secrets().size()).isLessThanOrEqualTo(SessionTicketKeys.MAX_KEYS);
        }
        // 6 h rotation, tickets valid 2 days: the newest 9 secrets (54 h) are kept
        assertThat(k.secrets()).hasSize((int) (SessionTicketKeys.KEEP_MS / SessionTicketKeys.ROTATE_MS));
        assertThat(k.secrets().get(0).createdMs()).isEqualTo(t - SessionTicketKeys.ROTATE_MS);
    }

    @Test
    void keysDependOnTheSecretAndTheTrustBundleNotItsOrder() {
        CertificateAuthority a = CertificateAuthority.create("a", Duration.ofDays(1), Clock.systemUTC());
        CertificateAuthority b = CertificateAuthority.create("b", Duration.ofDays(1), Clock.systemUTC());
        SessionTicketKeys k = SessionTicketKeys.none().rotated(T0, random);
        OpenSslSessionTicketKey ab = k.ticketKeys(List.of(a.certificate(), b.certificate())).get(0);
        OpenSslSessionTicketKey ba = k.ticketKeys(List.of(b.certificate(), a.certificate())).get(0);
        OpenSslSessionTicketKey onlyA = k.ticketKeys(List.of(a.certificate())).get(0);
        assertThat(ab.name()).isEqualTo(ba.name());
        assertThat(ab.aesKey()).isEqualTo(ba.aesKey());
        assertThat(ab.hmacKey()).isEqualTo(ba.hmacKey());
        assertThat(onlyA.name()).isNotEqualTo(ab.name());
        assertThat(onlyA.aesKey()).isNotEqualTo(ab.aesKey());
        OpenSslSessionTicketKey other = SessionTicketKeys.none().rotated(T0, random).ticketKeys(List.of(a.certificate())).get(0);
        assertThat(other.aesKey()).isNotEqualTo(onlyA.aesKey());
        assertThat(onlyA.name()).hasSize(16);
        assertThat(onlyA.hmacKey()).hasSize(16);
        assertThat(onlyA.aesKey()).hasSize(16).isNotEqualTo(onlyA.hmacKey());
    }
}
