package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Trust material other users may write is refused at start; an inline token others may read is warned about. */
class TrustedFilesTest {
    @TempDir
    Path dir;

    private static void chmod(Path p, String mode) throws Exception {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    }

    private DaemonConfig config(Path pki, Path state, Path tokenFile) {
        return ConfigLoader.parse("""
                security:
                  pkiDirectory: "%s"
                state:
                  directory: "%s"
                rest:
                  adminTokenFile: "%s"
                """.formatted(pki, state, tokenFile), "test");
    }

    @Test
    void trustMaterialWritableByAnyUserIsRefusedAndGroupWritableIsNot() throws Exception {
        Path pki = Files.createDirectories(dir.resolve("pki"));
        Path ca = Files.writeString(pki.resolve("ca.crt"), "x");
        Files.writeString(pki.resolve("daemon.crt"), "x");
        Path state = Files.createDirectories(dir.resolve("state"));
        Path tokens = Files.createDirectories(dir.resolve("tokens"));
        Path token = Files.writeString(tokens.resolve("admin-token"), "0123456789abcdef0123");
        for (Path p : List.of(pki, state, tokens)) {
            chmod(p, "rwxr-x---");
        }
        chmod(ca, "rw-r--r--");
        DaemonConfig config = config(pki, state, token);
        assertThatCode(() -> TrustedFiles.check(config)).doesNotThrowAnyException();

        chmod(pki, "rwxrwxrwx");
        chmod(ca, "rw-rw-rw-");
        assertThatThrownBy(() -> TrustedFiles.check(config)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("security.pkiDirectory " + pki + " (mode rwxrwxrwx)")
                .hasMessageContaining("the trusted CA bundle " + ca + " (mode rw-rw-rw-)");
        chmod(pki, "rwxr-x---");
        chmod(ca, "rw-r--r--");
        chmod(state, "rwxrwxrwx");
        assertThatThrownBy(() -> TrustedFiles.check(config)).hasMessageContaining("state.directory " + state);
        chmod(state, "rwxrwx---");
        chmod(tokens, "rwxrwxrwx");
        assertThatThrownBy(() -> TrustedFiles.check(config)).hasMessageContaining("the admin token file's directory");
        chmod(tokens, "rwxrwxr-x");
        assertThatCode(() -> TrustedFiles.check(config)).as("group-writable: warned, not refused")
                .doesNotThrowAnyException();
    }

    /** The TLS files serve the southbound and the Raft port: without both, they are not read, and not checked. */
    @Test
    void withoutASouthboundOrAGroupTheTlsFilesAreNotChecked() throws Exception {
        Path pki = Files.createDirectories(dir.resolve("pki"));
        Files.writeString(pki.resolve("ca.crt"), "x");
        Path state = Files.createDirectories(dir.resolve("state"));
        chmod(pki, "rwxrwxrwx");
        DaemonConfig openSmOnly = ConfigLoader.parse("""
                southbound:
                  enabled: false
                opensm:
                  socket: "%s"
                security:
                  pkiDirectory: "%s"
                state:
                  directory: "%s"
                """.formatted(dir.resolve("opensm.sock"), pki, state), "test");
        assertThatCode(() -> TrustedFiles.check(openSmOnly)).doesNotThrowAnyException();
        DaemonConfig group = openSmOnly.withHa(Ha.of(true, "n1", List.of("n1=127.0.0.1:7690"), null, null, null));
        assertThatThrownBy(() -> TrustedFiles.check(group)).as("the Raft port reads them")
                .hasMessageContaining("security.pkiDirectory " + pki);
    }

    @Test
    void anInlineTokenInAConfigurationAnyUserMayReadIsWarnedAbout() throws Exception {
        Path file = Files.writeString(dir.resolve("fm.yaml"), "rest:\n  adminToken: \"0123456789abcdef0123\"\n");
        Logger logger = (Logger) LoggerFactory.getLogger(ConfigLoader.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        try {
            chmod(file, "rw-------");
            ConfigLoader.load(file);
            assertThat(log.list).isEmpty();
            chmod(file, "rw-r--r--");
            ConfigLoader.load(file);
            assertThat(log.list).extracting(ILoggingEvent::getFormattedMessage).singleElement().asString()
                    .contains(file.toString()).contains("rest.adminTokenFile");
        } finally {
            logger.detachAppender(log);
        }
    }

    @Test
    void aStateDirectoryTheDaemonCreatesIsOpenToItsGroupOnly() throws Exception {
        Path state = dir.resolve("new").resolve("state");
        DaemonConfig config = DaemonConfig.defaults().withPorts(0, 0).withStateDirectory(state);
        try (FabricManagerDaemon d = FabricManagerDaemon.start(config, StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(new org.fabricmanager.routing.dmodc.DmodcEngine(1)))) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state))).isEqualTo("rwxr-x---");
        }
    }
}
