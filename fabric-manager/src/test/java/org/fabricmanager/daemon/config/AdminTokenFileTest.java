package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rest.adminTokenFile}: the first line of an owner-only file, or a one-line error. */
class AdminTokenFileTest {
    private static final String TOKEN = "3f1c9a7e5b2d4c6e8a0b1c2d3e4f5a6b";

    @TempDir
    Path dir;

    private Path file(String content, String mode) throws Exception {
        Path f = dir.resolve("token-" + mode + "-" + content.length());
        Files.writeString(f, content);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    @Test
    void readsTheFirstLineOfAnOwnerOnlyFile() throws Exception {
        assertThat(AdminTokenFile.read(file(TOKEN + "\n# rotated 2026-11-23\n", "rw-------"))).isEqualTo(TOKEN);
        assertThat(AdminTokenFile.read(file("  " + TOKEN + "  ", "r--------"))).isEqualTo(TOKEN);
        Rest rest = Rest.of(null, null, null, null,
                file(TOKEN, "rw-------").toString(), null);
        assertThat(AdminTokenFile.resolve(rest)).isEqualTo(TOKEN);
        assertThat(AdminTokenFile.resolve(Rest.of(null, null, null, "inline-token-0123456789", null, null)))
                .isEqualTo("inline-token-0123456789");
    }

    @Test
    void refusesWhatOthersMayReadAndWhatIsNoToken() throws Exception {
        assertThatThrownBy(() -> AdminTokenFile.read(file(TOKEN, "rw-r--r--"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("lets other users read the admin token").hasMessageContaining("chmod 600");
        assertThatThrownBy(() -> AdminTokenFile.read(file(TOKEN, "rw-r-----"))).hasMessageContaining("rw-r-----");
        assertThatThrownBy(() -> AdminTokenFile.read(dir.resolve("absent"))).hasMessageContaining("no such file");
        assertThatThrownBy(() -> AdminTokenFile.read(file("short", "rw-------"))).hasMessageContaining("at least 16");
        assertThatThrownBy(() -> AdminTokenFile.read(file("two words in a token line", "rw-------")))
                .hasMessageContaining("without spaces");
        assertThatThrownBy(() -> AdminTokenFile.read(file("\n" + TOKEN, "rw-------"))).hasMessageContaining("first line");
        assertThatThrownBy(() -> AdminTokenFile.read(file("x".repeat(AdminTokenFile.MAX_BYTES + 1), "rw-------")))
                .hasMessageContaining("longer than 4096 bytes");
    }

    @Test
    void anInlineTokenAndATokenFileExcludeEachOther() {
        assertThatThrownBy(() -> Rest.of(null, null, null, TOKEN, "/etc/fabric-manager/admin-token", null))
                .isInstanceOf(ConfigException.class).hasMessageContaining("exclude each other");
        assertThatThrownBy(() -> RestTls.of("/etc/x.crt", null)).hasMessageContaining("both certFile and keyFile");
    }
}
