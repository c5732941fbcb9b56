package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.ConfigLoader;
import org.fabricmanager.daemon.config.ConfigReload;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reload (SIGHUP) reads {@code rest.adminTokenFile} again: a rotated token takes effect at once, and a file
 * others may read refuses the reload and keeps the running token.
 */
class TokenFileReloadTest {
    @TempDir
    Path dir;

    @Test
    void aRotatedTokenFileTakesEffectAtTheNextReload() throws Exception {
        Path token = dir.resolve("admin-token");
        Files.writeString(token, "first-token-0123456789\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        String yaml = """
                southbound:
                  bind: "127.0.0.1"
                  port: 0
                rest:
                  port: 0
                  adminTokenFile: "%s"
                state:
                  directory: "%s"
                security:
                  insecure: true
                """.formatted(token, dir.resolve("state"));
        DaemonConfig config = ConfigLoader.parse(yaml, "fm.yaml");
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of())) {
            assertThat(daemon.api().adminToken()).isEqualTo("first-token-0123456789");
            Files.writeString(token, "second-token-0123456789\n");
            ConfigReload r = daemon.reload(ConfigLoader.parse(yaml, "fm.yaml")).get();
            assertThat(daemon.api().adminToken()).isEqualTo("second-token-0123456789");
            assertThat(r.changed()).anySatisfy(c -> assertThat(c).startsWith("admin token read from"));
            assertThat(String.join(" ", r.changed())).doesNotContain("token-0123456789");
            assertThat(daemon.api().milestones(0).get()).filteredOn(m -> m.kind() == Milestone.Kind.CONFIG_RELOADED)
                    .singleElement().extracting(Milestone::message).asString().startsWith("configuration reloaded; changed: ")
                    .contains("admin token read from").doesNotContain("token-0123456789");

            Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
            assertThatThrownBy(() -> daemon.reload(ConfigLoader.parse(yaml, "fm.yaml")).get())
                    .hasMessageContaining("chmod 600");
            assertThat(daemon.api().adminToken()).as("the running token stays").isEqualTo("second-token-0123456789");
        }
    }
}
