package org.fabricmanager.daemon.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.fabricmanager.pki.SessionTicketKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ticket-keys} state file: what is saved is loaded, owner-only; a file others may read is refused (its
 * secrets may be known), and a damaged one is named without quoting a secret.
 */
class TicketKeyStoreTest {
    @TempDir
    Path dir;

    private final SecureRandom random = new SecureRandom();

    @Test
    void savedKeysLoadAgainInTheirOrderFromAnOwnerOnlyFile() throws Exception {
        SessionTicketKeys keys = SessionTicketKeys.none().rotated(1_000, random).rotated(2_000, random).rotated(3_000, random);
        TicketKeyStore store = new TicketKeyStore(dir, StateFiles.LOCAL);
        store.save(keys);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file()))).isEqualTo("rw-------");
        SessionTicketKeys loaded = new TicketKeyStore(dir, StateFiles.LOCAL).load();
        assertThat(loaded).isEqualTo(keys);
        assertThat(loaded.secrets()).extracting(SessionTicketKeys.Secret::createdMs).containsExactly(3_000L, 2_000L, 1_000L);
    }

    @Test
    void noFileIsNoKeys() {
        assertThat(new TicketKeyStore(dir, StateFiles.LOCAL).load().isEmpty()).isTrue();
    }

    @Test
    void aFileOthersMayReadIsNotUsed() throws Exception {
        TicketKeyStore store = new TicketKeyStore(dir, StateFiles.LOCAL);
        store.save(SessionTicketKeys.none().rotated(1_000, random));
        Files.setPosixFilePermissions(store.file(), PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("ticket-keys")
                .hasMessageContaining("rw-r--r--");
    }

    @Test
    void aDamagedFileIsNamedWithoutQuotingItsSecrets() throws Exception {
        TicketKeyStore store = new TicketKeyStore(dir, StateFiles.LOCAL);
        SessionTicketKeys keys = SessionTicketKeys.none().rotated(1_000, random);
        store.save(keys);
        String secret = HexFormat.of().formatHex(keys.secrets().get(0).bytes());
        String text = Files.readString(store.file());
        assertThat(text).contains(secret);
        // one hex digit less: the checksum fails first; rewrite the header too, so that the line itself is judged
        String cut = text.replace(secret, secret.substring(1));
        Files.writeString(store.file(), cut, StandardCharsets.UTF_8);
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("ticket-keys")
                .hasMessageNotContaining(secret.substring(1, 20));
        ChecksummedLines.write(store.file(), "ticket-keys/1", "x", java.util.List.of("1000 " + secret.substring(1)),
                StateFiles.LOCAL);
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining("entry 1")
                .hasMessageNotContaining(secret.substring(1, 20));
    }

    @Test
    void aSecretNeverShowsInToString() {
        SessionTicketKeys keys = SessionTicketKeys.none().rotated(1_000, random);
        String secret = HexFormat.of().formatHex(keys.secrets().get(0).bytes());
        assertThat(keys.toString()).doesNotContain(secret.substring(0, 8)).contains("created");
    }
}
