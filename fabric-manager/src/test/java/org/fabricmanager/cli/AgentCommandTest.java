package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code agent --config}: a hostile configuration or cabling file ends the command with exit code 2 and one line on
 * standard error naming the key, before the agent starts anything. Every configuration here also names TLS files:
 * were a value let through, the agent would stop at them, still before any ip or bridge process.
 */
class AgentCommandTest {
    @TempDir
    Path dir;

    private Path config(String tlsFile, String extra) throws IOException {
        Path cabling = Files.writeString(dir.resolve("cabling.txt"), "0x1000000100000000 1 node 0x2000000000000000 n0\n");
        return Files.writeString(dir.resolve("agent.yaml"), """
                guid: "0x1000000100000000"
                ports: 4
                managers: ["127.0.0.1:9"]
                certificate: %1$s
                key: %1$s
                ca: %1$s
                """.formatted(tlsFile) + (extra.contains("cabling:") ? "" : "cabling: " + cabling + "\n") + extra + "\n");
    }

    private static void refusedWithOneLine(CliRun run, String expected) {
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.out()).as("nothing started").isEmpty();
        assertThat(run.err().lines()).as(run.err()).hasSize(1).first().asString().startsWith("agent: ").contains(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"netns: ../../proc/1/ns/net", "netns: -all", "netns: \"lab\\n-all\"", "bridge: -all",
            "bridge: abcdefghijklmnop", "portPrefix: \"p\\n\""})
    void aHostileNameEndsTheAgentWithOneLineNamingTheKey(String line) throws IOException {
        String key = line.substring(0, line.indexOf(':'));
        refusedWithOneLine(CliRun.of("agent", "--config", config(dir.resolve("absent.pem").toString(), line).toString()),
                ": " + key + " ");
    }

    @Test
    void aSecretCablingFileEndsTheAgentWithOneLineThatShowsNoneOfIt() throws IOException {
        Path pem = Files.writeString(dir.resolve("x.pem"), "unused\n");
        Path shadow = Files.writeString(dir.resolve("shadow"), "root:$6$s3cretSalt$Hash:19000:0:99999:7:::\n");
        Files.setPosixFilePermissions(shadow, PosixFilePermissions.fromString("rw-------"));
        CliRun run = CliRun.of("agent", "--config", config(pem.toString(), "cabling: " + shadow).toString());
        refusedWithOneLine(run, "agent: cabling " + shadow + ":1: SWITCH-GUID (field 1) is not a GUID");
        assertThat(run.err()).doesNotContain("s3cret", "root:");
        refusedWithOneLine(CliRun.of("agent", "--config", config(pem.toString(), "cabling: /dev/zero").toString()),
                ": cabling /dev/zero: not a regular file but a character device");
    }
}
