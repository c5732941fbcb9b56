package org.fabricmanager.pki;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslServerSessionContext;
import io.netty.handler.ssl.OpenSslSessionTicketKey;
import io.netty.handler.ssl.SslContext;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * TLS 1.3 session resumption between managers that share session-ticket keys ({@link SessionTicketKeys}), driven in
 * memory on BoringSSL: an agent's ticket from one manager resumes with another of the same keys and trust bundle,
 * and with nothing else; on a resumed session the manager still holds the agent's certificate (its GUID), which the
 * HELLO check reads; a ticket of other keys, of another bundle, or forged under the right key name, gets a full
 * handshake that still authenticates the agent.
 */
class SessionResumptionTest {
    private static final long NOW = 1_700_000_000_000L;
    private final CertificateAuthority ca = CertificateAuthority.create("fabric", Duration.ofDays(1), Clock.systemUTC());
    private final SecureRandom random = new SecureRandom();
    private SessionTicketKeys keys;

    @BeforeEach
    void needsBoringSsl() {
        RealParts.require(OpenSsl.isAvailable(), "BoringSSL (netty-tcnative) does not load here: "
                + OpenSsl.unavailabilityCause());
        keys = SessionTicketKeys.none().rotated(NOW, random);
    }

    @Test
    void anAgentResumesWithAnotherManagerOfTheSameKeys() throws Exception {
        SslContext n1 = manager(ca, keys);
        SslContext n2 = manager(ca, keys);
        SslContext agent = agent(ca, 0x10L);
        InMemoryHandshake first = handshake(n1, agent);
        assertThat(first.failure()).isNull();
        assertThat(TlsContexts.resumed(first.server())).as("first contact: full handshake").isFalse();
        InMemoryHandshake second = handshake(n2, agent);
        assertThat(second.failure()).isNull();
        assertThat(TlsContexts.resumed(second.server())).as("the other manager resumes the ticket of the first").isTrue();
        assertThat(TlsContexts.resumed(second.client())).isTrue();
        // the resumed session still names the agent's certificate on the manager, and a daemon's on the agent
        X509Certificate agentCertificate = (X509Certificate) second.server().getSession().getPeerCertificates()[0];
        assertThat(FabricIdentity.switchGuid(agentCertificate)).hasValue(0x10L);
        assertThat(FabricIdentity.isDaemon((X509Certificate) second.client().getSession().getPeerCertificates()[0])).isTrue();
        // and the resumed session's new ticket resumes again, with the first manager
        InMemoryHandshake third = handshake(n1, agent);
        assertThat(TlsContexts.resumed(third.server())).isTrue();
        first.release();
        second.release();
        third.release();
    }

    @Test
    void aResumedSessionOfSwitchANamesSwitchANotTheSwitchOfAnotherAgent() throws Exception {
        SslContext n1 = manager(ca, keys);
        SslContext n2 = manager(ca, keys);
        SslContext a = agent(ca, 0xAL);
        SslContext b = agent(ca, 0xBL);
        handshake(n1, a).release();
        handshake(n1, b).release();
        InMemoryHandshake resumedA = handshake(n2, a);
        InMemoryHandshake resumedB = handshake(n2, b);
        assertThat(TlsContexts.resumed(resumedA.server())).isTrue();
        assertThat(TlsContexts.resumed(resumedB.server())).isTrue();
        assertThat(FabricIdentity.switchGuid((X509Certificate) resumedA.server().getSession().getPeerCertificates()[0]))
                .hasValue(0xAL);
        assertThat(FabricIdentity.switchGuid((X509Certificate) resumedB.server().getSession().getPeerCertificates()[0]))
                .hasValue(0xBL);
        resumedA.release();
        resumedB.release();
    }

    @Test
    void aManagerOfOtherKeysMakesAFullHandshake() throws Exception {
        SslContext n1 = manager(ca, keys);
        SslContext stranger = manager(ca, SessionTicketKeys.none().rotated(NOW, random));
        SslContext agent = agent(ca, 0x10L);
        handshake(n1, agent).release();
        InMemoryHandshake h = handshake(stranger, agent);
        assertThat(h.failure()).isNull();
        assertThat(TlsContexts.resumed(h.server())).isFalse();
        assertThat(FabricIdentity.switchGuid((X509Certificate) h.server().getSession().getPeerCertificates()[0])).hasValue(0x10L);
        h.release();
    }

    @Test
    void anotherTrustBundleDerivesOtherKeysFromTheSameSecrets() throws Exception {
        // the end of a CA rotation removes a CA: tickets issued under the old bundle must not skip the new check
        CertificateAuthority next = CertificateAuthority.create("fabric 2", Duration.ofDays(1), Clock.systemUTC());
        SslContext rotating = manager(ca, keys, List.of(ca.certificate(), next.certificate()));
        SslContext rotated = manager(ca, keys, List.of(ca.certificate()));
        SslContext agent = agent(ca, 0x10L);
        handshake(rotating, agent).release();
        InMemoryHandshake h = handshake(rotated, agent);
        assertThat(h.failure()).isNull();
        assertThat(TlsContexts.resumed(h.server())).isFalse();
        // the same bundle in another order is the same bundle
        SslContext reordered = manager(ca, keys, List.of(next.certificate(), ca.certificate()));
        handshake(rotating, agent).release();
        InMemoryHandshake again = handshake(reordered, agent);
        assertThat(TlsContexts.resumed(again.server())).isTrue();
        h.release();
        again.release();
    }

    @Test
    void aTicketOfAnotherFabricIsNotAcceptedAndItsAgentIsRefused() throws Exception {
        // another fabric's manager and agent (another CA): the agent's ticket is no use here, and its certificate fails
        CertificateAuthority other = CertificateAuthority.create("other fabric", Duration.ofDays(1), Clock.systemUTC());
        SslContext theirs = manager(other, keys);   // even with the very same secrets (bundle differs)
        SslContext theirAgent = agentTrusting(other, 0x10L, List.of(other.certificate(), ca.certificate()));
        handshake(theirs, theirAgent).release();
        InMemoryHandshake h = handshake(manager(ca, keys), theirAgent);
        assertThat(h.failure()).as("a full handshake, in which the other CA's certificate is refused").isNotNull();
        h.release();
    }

    @Test
    void aTicketForgedUnderTheRightKeyNameGetsAFullHandshake() throws Exception {
        // the key name travels in the clear in every ticket; a forger knows it, not the secret's HMAC and AES keys
        SslContext real = manager(ca, keys);
        OpenSslSessionTicketKey genuine = keys.ticketKeys(List.of(ca.certificate())).get(0);
        byte[] hmac = new byte[16];
        byte[] aes = new byte[16];
        random.nextBytes(hmac);
        random.nextBytes(aes);
        TlsMaterial forgerMaterial = daemonMaterial(ca, List.of(ca.certificate()));
        SslContext forger = TlsContexts.server(forgerMaterial, TlsProvider.OPENSSL.engine(forgerMaterial));
        ((OpenSslServerSessionContext) forger.sessionContext()).setTicketKeys(
                new OpenSslSessionTicketKey(genuine.name(), hmac, aes));
        SslContext agent = agent(ca, 0x10L);
        InMemoryHandshake fromForger = handshake(forger, agent);
        assertThat(fromForger.failure()).isNull();
        fromForger.release();
        InMemoryHandshake h = handshake(real, agent);
        assertThat(h.failure()).isNull();
        assertThat(TlsContexts.resumed(h.server())).as("the forged ticket is ignored").isFalse();
        assertThat(FabricIdentity.switchGuid((X509Certificate) h.server().getSession().getPeerCertificates()[0])).hasValue(0x10L);
        h.release();
    }

    @Test
    void theOlderKeysStillOpenTheirTicketsAfterARotation() throws Exception {
        SslContext before = manager(ca, keys);
        SslContext agent = agent(ca, 0x10L);
        handshake(before, agent).release();
        SessionTicketKeys next = keys.rotated(NOW + SessionTicketKeys.ROTATE_MS, random);
        InMemoryHandshake h = handshake(manager(ca, next), agent);
        assertThat(TlsContexts.resumed(h.server())).as("sealed by the previous key").isTrue();
        h.release();
        // once the old secret is dropped, its tickets make a full handshake (an agent holding tickets of the old key
        // only: the first agent also holds tickets of the newer key, from the resumption above)
        SslContext oldTicketsOnly = agent(ca, 0x11L);
        handshake(before, oldTicketsOnly).release();
        SessionTicketKeys later = next.rotated(NOW + SessionTicketKeys.KEEP_MS, random);
        assertThat(later.secrets()).doesNotContain(keys.secrets().get(0));
        InMemoryHandshake full = handshake(manager(ca, later), oldTicketsOnly);
        assertThat(full.failure()).isNull();
        assertThat(TlsContexts.resumed(full.server())).isFalse();
        full.release();
    }

    @Test
    void anAgentOffersTheTicketOfItsLastHandshakeNotAStaleOne() throws Exception {
        // tickets of keys no manager holds any more (a restart that lost its keys) must not be picked over fresh ones
        SslContext lost = manager(ca, keys);
        SslContext current = manager(ca, SessionTicketKeys.none().rotated(NOW, random));
        for (int i = 0; i < 8; i++) {
            SslContext agent = agent(ca, 0x20L + i);
            handshake(lost, agent).release();
            handshake(lost, agent).release();   // resumed: two more tickets of the lost keys
            InMemoryHandshake full = handshake(current, agent);
            assertThat(TlsContexts.resumed(full.server())).isFalse();
            full.release();
            InMemoryHandshake h = handshake(current, agent);
            assertThat(TlsContexts.resumed(h.server())).as("agent %d offers a ticket of its last handshake", i).isTrue();
            h.release();
        }
    }

    @Test
    void theJdkEngineTakesNoKeys() throws Exception {
        TlsMaterial d = daemonMaterial(ca, List.of(ca.certificate()));
        SslContext jdk = TlsContexts.server(d, TlsProvider.JDK.engine(d));
        assertThat(keys.installOn(jdk, d.trusted())).isFalse();
    }

    private static InMemoryHandshake handshake(SslContext server, SslContext agent) {
        return InMemoryHandshake.run(server, agent, TlsContexts.MANAGERS_PEER_HOST, TlsContexts.MANAGERS_PEER_PORT);
    }

    private SslContext manager(CertificateAuthority authority, SessionTicketKeys k) {
        return manager(authority, k, List.of(authority.certificate()));
    }

    private SslContext manager(CertificateAuthority authority, SessionTicketKeys k, List<X509Certificate> trusted) {
        TlsMaterial m = daemonMaterial(authority, trusted);
        SslContext context = TlsContexts.server(m, TlsProvider.OPENSSL.engine(m));
        assertThat(k.installOn(context, trusted)).isTrue();
        return context;
    }

    private static TlsMaterial daemonMaterial(CertificateAuthority authority, List<X509Certificate> trusted) {
        // each manager has a certificate of its own
        IssuedCertificate d = authority.issueDaemon(List.of(), List.of(), Duration.ofDays(1));
        return new TlsMaterial(List.of(d.certificate()), d.key(), trusted);
    }

    private static SslContext agent(CertificateAuthority authority, long guid) {
        return agentTrusting(authority, guid, List.of(authority.certificate()));
    }

    private static SslContext agentTrusting(CertificateAuthority authority, long guid, List<X509Certificate> trusted) {
        IssuedCertificate s = authority.issueSwitch(guid, "s", Duration.ofDays(1));
        TlsMaterial m = new TlsMaterial(List.of(s.certificate()), s.key(), trusted);
        return TlsContexts.client(m, TlsProvider.OPENSSL.engine(m));
    }
}
