package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.daemon.store.TicketKeyStore;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.InMemoryHandshake;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.SessionTicketKeys;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.testing.Await;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's session-ticket keys across restarts: the first start makes and saves them, a restart installs the same
 * ones (an agent's ticket from the previous run resumes), a start after the rotation interval adds one and keeps the
 * old, and a key file others could read is replaced rather than used.
 */
class TicketKeyRotationTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final CertificateAuthority CA = CertificateAuthority.create("fabric", Duration.ofDays(1), Clock.systemUTC());

    @TempDir
    Path state;

    @Test
    void aRestartedDaemonResumesTheSessionsOfItsPreviousRun() throws Exception {
        RealParts.require(OpenSsl.isAvailable(), "BoringSSL (netty-tcnative) does not load here: "
                + OpenSsl.unavailabilityCause());
        TicketKeyStore store = new TicketKeyStore(state, StateFiles.LOCAL);
        SslContext firstRun = server();
        TicketKeyRotation first = TicketKeyRotation.start(store, firstRun, List.of(CA.certificate()), () -> T0);
        assertThat(first).isNotNull();
        awaitSaved(store, first.keys());
        first.close();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file()))).isEqualTo("rw-------");
        SslContext agent = agent(0x10L);
        InMemoryHandshake before = handshake(firstRun, agent);
        assertThat(TlsContexts.resumed(before.server())).isFalse();
        before.release();

        SslContext secondRun = server();
        TicketKeyRotation second = TicketKeyRotation.start(store, secondRun, List.of(CA.certificate()), () -> T0 + 60_000);
        assertThat(second.keys()).as("the stored keys, not new ones").isEqualTo(first.keys());
        InMemoryHandshake after = handshake(secondRun, agent);
        assertThat(after.failure()).isNull();
        assertThat(TlsContexts.resumed(after.server())).as("the previous run's ticket resumes").isTrue();
        after.release();
        second.close();
    }

    @Test
    void aStartAfterTheRotationIntervalAddsAKeyAndKeepsTheOld() throws Exception {
        RealParts.require(OpenSsl.isAvailable(), "BoringSSL (netty-tcnative) does not load here: "
                + OpenSsl.unavailabilityCause());
        TicketKeyStore store = new TicketKeyStore(state, StateFiles.LOCAL);
        SessionTicketKeys old = SessionTicketKeys.none().rotated(T0, new SecureRandom());
        store.save(old);
        SslContext oldRun = server();
        old.installOn(oldRun, List.of(CA.certificate()));
        SslContext agent = agent(0x10L);
        handshake(oldRun, agent).release();

        SslContext context = server();
        TicketKeyRotation r = TicketKeyRotation.start(store, context, List.of(CA.certificate()),
                () -> T0 + SessionTicketKeys.ROTATE_MS);
        assertThat(r.keys().secrets()).hasSize(2);
        assertThat(r.keys().secrets().get(1)).isEqualTo(old.secrets().get(0));
        awaitSaved(store, r.keys());
        InMemoryHandshake h = handshake(context, agent);
        assertThat(TlsContexts.resumed(h.server())).as("a ticket of the previous key still resumes").isTrue();
        h.release();
        r.close();
    }

    @Test
    void aKeyFileOthersCouldReadIsReplacedNotUsed() throws Exception {
        RealParts.require(OpenSsl.isAvailable(), "BoringSSL (netty-tcnative) does not load here: "
                + OpenSsl.unavailabilityCause());
        TicketKeyStore store = new TicketKeyStore(state, StateFiles.LOCAL);
        SessionTicketKeys exposed = SessionTicketKeys.none().rotated(T0, new SecureRandom());
        store.save(exposed);
        Files.setPosixFilePermissions(store.file(), PosixFilePermissions.fromString("rw-r--r--"));
        TicketKeyRotation r = TicketKeyRotation.start(store, server(), List.of(CA.certificate()), () -> T0 + 1);
        assertThat(r.keys().secrets()).hasSize(1).doesNotContain(exposed.secrets().get(0));
        awaitSaved(store, r.keys());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file()))).isEqualTo("rw-------");
        r.close();
    }

    @Test
    void theJdkEngineGetsNoRotation() {
        TlsMaterial d = daemon();
        SslContext jdk = TlsContexts.server(d, TlsProvider.JDK.engine(d));
        assertThat(TicketKeyRotation.start(new TicketKeyStore(state, StateFiles.LOCAL), jdk, d.trusted(), () -> T0)).isNull();
        assertThat(Files.exists(state.resolve(TicketKeyStore.FILE))).isFalse();
    }

    /** Until the store holds {@code keys} (a StoreException is the file of a previous step, not yet replaced). */
    private static void awaitSaved(TicketKeyStore store, SessionTicketKeys keys) {
        Await.value("the keys saved", Duration.ofSeconds(10),
                () -> Files.exists(store.file()) ? store.load() : null, keys::equals);
    }

    private static InMemoryHandshake handshake(SslContext server, SslContext agent) {
        return InMemoryHandshake.run(server, agent, TlsContexts.MANAGERS_PEER_HOST, TlsContexts.MANAGERS_PEER_PORT);
    }

    private static TlsMaterial daemon() {
        IssuedCertificate d = CA.issueDaemon(List.of(), List.of(), Duration.ofDays(1));
        return new TlsMaterial(List.of(d.certificate()), d.key(), List.of(CA.certificate()));
    }

    private static SslContext server() {
        TlsMaterial d = daemon();
        return TlsContexts.server(d, TlsProvider.OPENSSL.engine(d));
    }

    private static SslContext agent(long guid) {
        IssuedCertificate s = CA.issueSwitch(guid, "s", Duration.ofDays(1));
        TlsMaterial m = new TlsMaterial(List.of(s.certificate()), s.key(), List.of(CA.certificate()));
        return TlsContexts.client(m, TlsProvider.OPENSSL.engine(m));
    }
}
