package org.fabricmanager.daemon.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.fabricmanager.pki.PemFiles;
import org.fabricmanager.pki.PkiException;

/**
 * Reads the REST admin token from {@code rest.adminTokenFile}: the first line, trimmed, of a file only its
 * owner may read or write (a token other users can read lets them re-route the fabric and admit switches).
 * Bounded: a file longer than {@link #MAX_BYTES} is refused before it is read whole.
 */
public final class AdminTokenFile {
    /** Longest token file read. */
    public static final int MAX_BYTES = 4096;
    /** Shortest token accepted: a guessable token is no authentication. */
    public static final int MIN_TOKEN_CHARS = 16;

    private AdminTokenFile() {
    }

    /** The token of {@code rest}: inline, from its file, or {@code null} when neither is set. */
    public static String resolve(Rest rest) {
        return rest.adminTokenFile() != null ? read(Path.of(rest.adminTokenFile())) : rest.adminToken();
    }

    /**
     * @throws ConfigException when the file is missing, readable by others, too long, or holds no usable token
     */
    public static String read(Path file) {
        checkOwnerOnly(file);
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        } catch (NoSuchFileException e) {
            throw new ConfigException("rest.adminTokenFile " + file + ": no such file");
        } catch (IOException e) {
            throw new ConfigException("rest.adminTokenFile " + file + ": " + e.getMessage());
        }
        if (bytes.length > MAX_BYTES) {
            throw new ConfigException("rest.adminTokenFile " + file + ": longer than " + MAX_BYTES
                    + " bytes; it should hold the token on one line");
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        int end = text.indexOf('\n');
        String token = (end < 0 ? text : text.substring(0, end)).trim();
        if (token.length() < MIN_TOKEN_CHARS || token.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
            throw new ConfigException("rest.adminTokenFile " + file + ": the first line must be a token of at least "
                    + MIN_TOKEN_CHARS + " printable ASCII characters without spaces (e.g. openssl rand -hex 32)");
        }
        return token;
    }

    private static void checkOwnerOnly(Path file) {
        try {
            PemFiles.checkOwnerOnly(file, "the admin token");
        } catch (PkiException e) {
            throw new ConfigException("rest.adminTokenFile " + e.getMessage());
        }
    }
}
