package org.fabricmanager.agent.linux;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Reads a file that the agent's configuration names (the configuration itself, the cabling file) only when it is a
 * regular file, and never more than a bound: a device such as {@code /dev/zero} would otherwise be read until the
 * heap is gone, and a FIFO or a directory would block or fail half-way. Symbolic links are followed to the file
 * they end at, which is then checked and opened without following links. Messages name the file and what it is,
 * never anything it holds.
 */
public final class RegularFile {
    private RegularFile() {
    }

    /**
     * The real path of {@code file} once it is known to be a regular file.
     *
     * @throws IOException naming the file: missing, unreadable, or a directory, device, FIFO or socket
     */
    public static Path check(Path file) throws IOException {
        Path real;
        try {
            real = file.toRealPath();
        } catch (NoSuchFileException e) {
            throw new IOException(file + ": no such file", e);
        } catch (AccessDeniedException e) {
            throw new IOException(file + ": permission denied", e);
        }
        BasicFileAttributes a = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isRegularFile()) {
            throw new IOException(file + ": not a regular file but " + kind(real, a));
        }
        return real;
    }

    /**
     * All of {@code file}, a regular file of at most {@code maxBytes}.
     *
     * @throws IOException naming the file: as {@link #check}, or larger than {@code maxBytes}
     */
    public static byte[] read(Path file, int maxBytes) throws IOException {
        Path real = check(file);
        long size = Files.size(real);
        if (size > maxBytes) {
            throw new IOException(file + ": " + size + " bytes, more than the " + maxBytes + " read");
        }
        // the path could be swapped for another file between the check and the open (by someone who may write to its
        // directory): opening without following a link and reading at most the bound keep even that read bounded
        byte[] bytes;
        try (InputStream in = Files.newInputStream(real, LinkOption.NOFOLLOW_LINKS)) {
            bytes = in.readNBytes(maxBytes + 1);
        } catch (AccessDeniedException e) {
            throw new IOException(file + ": permission denied", e);
        }
        if (bytes.length > maxBytes) {
            throw new IOException(file + ": grew beyond the " + maxBytes + " bytes read while it was read");
        }
        return bytes;
    }

    /** What a file that is not regular is, for the message. */
    private static String kind(Path real, BasicFileAttributes a) {
        if (a.isDirectory()) {
            return "a directory";
        }
        try {
            int mode = (Integer) Files.getAttribute(real, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return switch (mode & 0170000) {
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                case 0010000 -> "a FIFO";
                case 0140000 -> "a socket";
                default -> "a special file";
            };
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "a special file";
        }
    }
}
