package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code whatif}'s own checks before and around the daemon's answer: one line on stderr, exit 2, for what
 * is missing or malformed, a token file others may read, and a daemon that cannot be reached. (The answers
 * of a running daemon: {@code WhatIfIT}.)
 */
class WhatIfCommandTest {
    @TempDir
    Path dir;

    @Test
    void badInputIsOneLineWithExitCode2() throws Exception {
        fails("whatif: name at least one --switch or --link to fail", "whatif");
        fails("whatif: --link '0x10': expected SWITCH:PORT", "whatif", "--link", "0x10");
        fails("whatif: --link '0x10:nine': the port must be a number", "whatif", "--link", "0x10:nine");

        Path token = dir.resolve("token");
        Files.writeString(token, "0123456789abcdef0123\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
        fails("chmod 600", "whatif", "--token-file", token.toString(), "--switch", "0x1");
        fails("whatif: --token-file " + dir.resolve("none") + ": no such file", "whatif", "--token-file",
                dir.resolve("none").toString(), "--switch", "0x1");

        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        fails("whatif: cannot reach the daemon at http://127.0.0.1:" + closed + ": connection refused", "whatif",
                "--url", "http://127.0.0.1:" + closed, "--token-file", token.toString(), "--switch", "0x1");
        // a switch name is looked up in the daemon's fabric: no daemon, the same one line
        fails("cannot reach the daemon at http://127.0.0.1:" + closed + ": connection refused", "whatif",
                "--url", "http://127.0.0.1:" + closed, "--token-file", token.toString(), "--switch", "s3-5");
    }

    @Test
    void helpNamesTheOptionsAndTheTokenRule() {
        CliRun run = CliRun.of("whatif", "--help");
        assertThat(run.out() + run.err()).contains("--token-file").contains("--switch").contains("--link")
                .contains("429");
    }

    private static void fails(String error, String... args) {
        CliRun run = CliRun.of(args);
        assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.err()).as("one line on stderr").contains(error).doesNotContain("\tat ").hasLineCount(1);
        assertThat(run.out()).isEmpty();
    }
}
