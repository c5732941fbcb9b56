package org.fabricmanager.agent.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.assertj.core.api.AbstractThrowableAssert;
import org.fabricmanager.topology.Guids;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code agent --config}: every value that becomes an iproute2 argument or names a file is checked when the
 * configuration is loaded, which the agent does before it reads anything else or starts any process; a hostile value
 * is refused with one line naming the file and the key, and a file that is no configuration is never echoed.
 */
class LinuxAgentConfigTest {
    @TempDir
    Path dir;
    private Path cabling;

    @BeforeEach
    void cablingFile() throws IOException {
        cabling = Files.writeString(dir.resolve("cabling.txt"), "0x1000000100000000 1 node 0x2000000000000000 n0\n");
    }

    /** A valid insecure configuration with {@code extra} lines after it (which cannot repeat a key: that is refused). */
    private Path config(String extra) throws IOException {
        return Files.writeString(dir.resolve("agent.yaml"), """
                guid: "0x1000000100000000"
                ports: 32
                managers: ["127.0.0.1:7600"]
                insecure: true
                """ + extra + "\n", StandardCharsets.UTF_8);
    }

    private AbstractThrowableAssert<?, ? extends Throwable> refused(Path file) {
        return assertThatThrownBy(() -> LinuxAgentConfig.load(file))
                .isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(e.getMessage()).as("one line").doesNotContain("\n", "\r")
                        .startsWith(file + ": "));
    }

    @Test
    void aValidConfigurationLoadsWithItsNames() throws IOException {
        LinuxAgentConfig c = LinuxAgentConfig.load(config("cabling: " + cabling + "\nnetns: lab-s1000000100000000\n"
                + "bridge: abcdefghijklmno\nportPrefix: swp\nname: leaf-1"));
        assertThat(c.switchSpec()).isEqualTo(new LinuxSwitch.Spec(Guids.parse("0x1000000100000000"), "leaf-1", 32,
                "lab-s1000000100000000", "abcdefghijklmno", "swp"));
        assertThat(c.cabling()).isEqualTo(cabling);
        assertThat(c.tls()).isNull();
        assertThat(LinuxAgentConfig.load(config("cabling: " + cabling)).switchSpec())
                .extracting(LinuxSwitch.Spec::netns, LinuxSwitch.Spec::bridge, LinuxSwitch.Spec::portPrefix)
                .containsExactly("", "br0", "p");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "netns|'../../proc/1/ns/net'|may not hold '/'",
            "netns|'/proc/1/ns/net'|may not hold '/'",
            "netns|'-all'|may not start with '-'",
            "netns|\"lab\\nall\"|visible ASCII",
            "netns|'..'|may not be '.' or '..'",
            "bridge|'-all'|may not start with '-'",
            "bridge|\"br\\n0\"|visible ASCII",
            "bridge|'abcdefghijklmnop'|at most 15 bytes, this one 16",
            "bridge|'br%d'|may not hold '%'",
            "bridge|'br#0'|may not hold '#'",
            "bridge|'br/0'|may not hold '/'",
            "bridge|'br 0'|visible ASCII",
            "bridge|'p3'|the interface of port 3 too",
            "bridge|''|may not be empty",
            "portPrefix|'-p'|may not start with '-'",
            "portPrefix|\"p\\n\"|visible ASCII",
            "portPrefix|'Ethernetabcdef'|longer than 15 bytes",
            "name|\"leaf\\n2024-01-01 ERROR forged\"|without control characters",
    })
    void aHostileNameIsRefusedAtLoadWithOneLineNamingTheKey(String key, String yamlValue, String reason) throws IOException {
        refused(config("cabling: " + cabling + "\n" + key + ": " + yamlValue))
                .hasMessageContaining(": " + key + " ")
                .hasMessageContaining(reason);
    }

    @Test
    void aNamespaceOfMoreThanNameMaxBytesIsRefused() throws IOException {
        refused(config("cabling: " + cabling + "\nnetns: " + "n".repeat(256))).hasMessageContaining("netns \"nnnn")
                .hasMessageContaining("at most 255 bytes");
    }

    @Test
    void aDuplicateKeyIsRefusedRatherThanTheLastOneWinning() throws IOException {
        refused(config("cabling: " + cabling + "\nnetns: lab\nnetns: '../../proc/1/ns/net'"))
                .hasMessageContaining("a key given twice (line 7");
    }

    @Test
    void aCablingFileThatIsNotARegularFileIsRefusedAtLoad() throws IOException {
        refused(config("cabling: /dev/zero")).hasMessageEndingWith(": cabling /dev/zero: not a regular file but a"
                + " character device");
        refused(config("cabling: " + dir)).hasMessageEndingWith(": cabling " + dir + ": not a regular file but a"
                + " directory");
        refused(config("cabling: " + dir.resolve("none"))).hasMessageEndingWith(": cabling " + dir.resolve("none")
                + ": no such file");
        refused(config("cabling: \"\\n/etc/shadow\"")).hasMessageContaining(": cabling \"\\n/etc/shadow\": a file's path");
        refused(config("cabling: ''")).hasMessageContaining(": cabling \"\": a file's path");
        Path fifo = RegularFileTest.fifo(dir.resolve("fifo"));
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> refused(config("cabling: " + fifo))
                .hasMessageEndingWith(": cabling " + fifo + ": not a regular file but a FIFO"));
    }

    @Test
    void tlsFilesThatAreNotRegularFilesAreRefusedAtLoad() throws IOException {
        Path pem = Files.writeString(dir.resolve("x.pem"), "not read at load\n");
        String tls = "cabling: " + cabling + "\ninsecure: false\ncertificate: " + pem + "\nkey: " + pem + "\nca: " + pem;
        Path ok = Files.writeString(dir.resolve("tls.yaml"), Files.readString(config("")).replace("insecure: true\n", "")
                + tls + "\n");
        assertThat(LinuxAgentConfig.load(ok).tls()).isEqualTo(new LinuxAgentConfig.TlsFiles(pem, pem, pem));
        Path bad = Files.writeString(dir.resolve("bad.yaml"), Files.readString(ok).replace("key: " + pem, "key: /dev/zero"));
        refused(bad).hasMessageEndingWith(": key /dev/zero: not a regular file but a character device");
    }

    @Test
    void aFileThatIsNoConfigurationIsRefusedWithoutShowingWhatItHolds() throws IOException {
        Path shadow = dir.resolve("shadow");
        Files.writeString(shadow, "root:$6$s3cretSalt$Hash0123456789:19000:0:99999:7:::\n"
                + "daemon:*:19000:0:99999:7:::\n");
        Files.setPosixFilePermissions(shadow, PosixFilePermissions.fromString("rw-------"));
        refused(shadow).hasMessageContaining("unknown key (not shown)")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret", "root", "daemon", "19000"));
        Path broken = Files.writeString(dir.resolve("broken"), "password: [hunter2\n");
        refused(broken).hasMessage(broken + ": not YAML (line 1, column 19)");
        refused(Files.writeString(dir.resolve("typo.yaml"), "netsn: lab\n")).hasMessageContaining("unknown key 'netsn';");
    }

    @Test
    void aConfigurationThatIsADeviceAFifoOrTooLargeIsRefusedUnread() throws IOException {
        refused(Path.of("/dev/zero")).hasMessage("/dev/zero: not a regular file but a character device");
        refused(dir).hasMessage(dir + ": not a regular file but a directory");
        Path big = dir.resolve("big.yaml");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(LinuxAgentConfig.MAX_BYTES + 1);
        }
        refused(big).hasMessage(big + ": " + (LinuxAgentConfig.MAX_BYTES + 1) + " bytes, more than the "
                + LinuxAgentConfig.MAX_BYTES + " read");
        Path fifo = RegularFileTest.fifo(dir.resolve("config.fifo"));
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> refused(fifo)
                .hasMessage(fifo + ": not a regular file but a FIFO"));
    }
}
