package org.fabricmanager.agent.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files the agent's configuration names are read only as regular files, never past their bound. */
class RegularFileTest {
    @TempDir
    Path dir;

    /** Makes a FIFO at {@code path} (the JDK cannot); skips the test where {@code mkfifo} is missing. */
    static Path fifo(Path path) throws IOException {
        Process p;
        try {
            p = new ProcessBuilder("mkfifo", path.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            RealParts.missing("mkfifo is not installed (Debian: coreutils): " + e.getMessage());
            throw e;
        }
        try {
            RealParts.require(p.waitFor() == 0, "mkfifo " + path + " failed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        return path;
    }

    @Test
    void aFileOfExactlyTheBoundIsReadAndOneByteMoreIsRefused() throws IOException {
        Path file = Files.write(dir.resolve("f"), new byte[100]);
        assertThat(RegularFile.read(file, 100)).hasSize(100);
        assertThatThrownBy(() -> RegularFile.read(file, 99)).hasMessage(file + ": 100 bytes, more than the 99 read");
    }

    @Test
    void aSymbolicLinkIsFollowedToWhatItEndsAtWhichIsThenChecked() throws IOException {
        Path file = Files.writeString(dir.resolve("real"), "x");
        Path link = Files.createSymbolicLink(dir.resolve("link"), file);
        assertThat(RegularFile.read(link, 10)).isEqualTo(new byte[]{'x'});
        assertThat(RegularFile.check(link)).isEqualTo(file.toRealPath());
        Path toDevice = Files.createSymbolicLink(dir.resolve("zero"), Path.of("/dev/zero"));
        assertThatThrownBy(() -> RegularFile.read(toDevice, 10))
                .hasMessage(toDevice + ": not a regular file but a character device");
    }

    @Test
    void devicesFifosAndDirectoriesAreRefusedBeforeTheyAreOpened() throws IOException {
        Path fifo = fifo(dir.resolve("fifo"));
        // a FIFO opened for reading blocks until a writer comes: the refusal must come without opening it
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThatThrownBy(() -> RegularFile.read(fifo, 10))
                .hasMessage(fifo + ": not a regular file but a FIFO"));
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThatThrownBy(
                () -> RegularFile.read(Path.of("/dev/zero"), Integer.MAX_VALUE - 8))
                .hasMessage("/dev/zero: not a regular file but a character device"));
        assertThatThrownBy(() -> RegularFile.read(dir, 10)).hasMessage(dir + ": not a regular file but a directory");
        assertThatThrownBy(() -> RegularFile.read(dir.resolve("none"), 10))
                .hasMessage(dir.resolve("none") + ": no such file");
    }
}
