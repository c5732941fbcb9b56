package org.fabricmanager.daemon.store;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a file so that a crash at any moment leaves either the old content or the new one: the
 * content goes to a temporary file in the same directory, which is fsynced and renamed over the
 * target; the directory is then fsynced so that the rename itself is durable. The new file is owner-only
 * (0600: the temporary file's mode, {@link Files#createTempFile}), which {@code ticket-keys} relies on.
 */
public final class AtomicFiles {
    private AtomicFiles() {
    }

    /** Writes the content of a file. */
    @FunctionalInterface
    public interface Body {
        void writeTo(OutputStream out) throws IOException;
    }

    /** Atomically replaces {@code target} with what {@code body} writes. */
    public static void write(Path target, Body body) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                OutputStream out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
                body.writeTo(out);
                out.flush();
                channel.force(true);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // some file systems cannot fsync a directory; the rename is still atomic there
        }
    }
}
