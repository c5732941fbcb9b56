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
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cabling file is read as a regular file within {@link Cabling#MAX_BYTES}, and its errors give the file, the line
 * and the field but never the text: a configuration naming a secret file must not print it.
 */
class CablingFileTest {
    private static final String SECRET = "s3cretSalt";

    @TempDir
    Path dir;

    private static AbstractThrowableAssert<?, ? extends Throwable> refused(Path file) {
        return assertThatThrownBy(() -> Cabling.read(file)).isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(e.getMessage()).as("one line, none of the file").doesNotContain("\n", "\r")
                        .doesNotContain(SECRET, "root", "TOP", "hunter"));
    }

    @Test
    void aSecretFileIsRefusedByItsLineNumberWithoutItsContent() throws IOException {
        Path shadow = Files.writeString(dir.resolve("shadow"), "root:$6$" + SECRET + "$Hash0123:19000:0:99999:7:::\n");
        Files.setPosixFilePermissions(shadow, PosixFilePermissions.fromString("rw-------"));
        refused(shadow).hasMessage(shadow + ":1: SWITCH-GUID (field 1) is not a GUID (0x and 16 lower-case hex digits)");
    }

    @Test
    void eachBadFieldIsNamedByLineAndFieldOnly() throws IOException {
        String good = "# a comment\n0x1000000100000000 1 node 0x2000000000000000 n0\n";
        refused(file(good + "0x1000000100000000 TOP node 0x2000000000000000\n"))
                .hasMessageEndingWith(":3: PORT (field 2) is not a number in [1, 254]");
        refused(file(good + "0x1000000100000000 2 node TOPSECRET n1\n"))
                .hasMessageEndingWith(":3: NODE-GUID (field 4) is not a GUID (0x and 16 lower-case hex digits)");
        refused(file(good + "0x1000000100000000 2 switch 0x1000000200000000 hunter2\n"))
                .hasMessageEndingWith(":3: PEER-PORT (field 5) is not a number in [1, 254]");
        refused(file(good + "0x1000000100000000 2 TOPSECRET 0x1000000200000000\n"))
                .hasMessageEndingWith(":3: expected 'GUID PORT switch PEER-GUID PEER-PORT [NAME]' or"
                        + " 'GUID PORT node NODE-GUID [NAME]'");
        refused(file(good + "0x1000000100000000 1 node 0x2000000000000001 TOP\n"))
                .hasMessageEndingWith(":3: cables the same switch port as line 2");
        refused(file(good + "0x1000000100000000 2 node 0x2000000000000001 TOP\u0007\n"))
                .hasMessageEndingWith(":3: a control character; a cabling file is text");
        Path latin1 = Files.write(dir.resolve("latin1"), (good + "0x1000000100000000 2 node 0x2000000000000001 TOP\u00e9\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        refused(latin1).hasMessage(latin1 + ":3: not UTF-8 text");
    }

    @Test
    void devicesFifosAndDirectoriesAreRefusedUnread() throws IOException {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> refused(Path.of("/dev/zero"))
                .hasMessage("/dev/zero: not a regular file but a character device"));
        Path fifo = RegularFileTest.fifo(dir.resolve("fifo"));
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> refused(fifo)
                .hasMessage(fifo + ": not a regular file but a FIFO"));
        refused(dir).hasMessage(dir + ": not a regular file but a directory");
    }

    @Test
    void aFileOverTheBoundIsRefusedUnread() throws IOException {
        Path big = dir.resolve("big");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(Cabling.MAX_BYTES + 1L);
        }
        refused(big).hasMessage(big + ": " + (Cabling.MAX_BYTES + 1L) + " bytes, more than the " + Cabling.MAX_BYTES
                + " read");
    }

    @Test
    void aWholeFabricOfTenThousandNodesFitsTheBoundWithRoomToSpare() throws IOException {
        String spec = "PGFT(3;16,16,40;1,16,16;1,1,1)";
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(spec));
        assertThat(fabric.nodes()).as(spec).hasSize(10_240);
        Path file = Files.write(dir.resolve("fabric.txt"), Cabling.lines(fabric), StandardCharsets.UTF_8);
        assertThat(Files.size(file)).as(spec).isLessThan(Cabling.MAX_BYTES / 2);
        Cabling cabling = Cabling.read(file);
        var link = fabric.links().get(0);
        assertThat(cabling.up(link.a(), link.aPort()).peerGuid()).isEqualTo(link.b());
    }

    @Test
    void windowsLineEndsAndSymbolicLinksToTheFileAreRead() throws IOException {
        Path file = file("0x1000000100000000 1 node 0x2000000000000000 n0\r\n"
                + "0x1000000100000000 2 switch 0x1000000200000000 7 s2\r\n");
        Cabling cabling = Cabling.read(Files.createSymbolicLink(dir.resolve("link"), file));
        assertThat(cabling.up(0x1000000100000000L, 1)).isEqualTo(PortRecord.toNode(1, 0x2000000000000000L, "n0"));
        assertThat(cabling.up(0x1000000100000000L, 2)).isEqualTo(PortRecord.toSwitch(2, 0x1000000200000000L, 7, "s2"));
    }

    private Path file(String text) throws IOException {
        return Files.writeString(dir.resolve("cabling-" + text.hashCode() + ".txt"), text, StandardCharsets.UTF_8);
    }
}
