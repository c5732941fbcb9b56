package org.fabricmanager.daemon.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.pki.SessionTicketKeys;

/**
 * The secrets of the southbound's TLS session-ticket keys (state file {@value #FILE}, one
 * {@code <created ms> <64 hex digits>} per line, newest first, under a checked header), so that a restarted daemon,
 * and with hot-standby managers every member, seals and opens the same tickets: agents resume their TLS session
 * instead of making a full handshake ({@link SessionTicketKeys}, docs/security.md). The file is owner-only (0600, as
 * every state file {@link AtomicFiles} writes); one that others may read is not used (its secrets may have been
 * read), and messages about the file never quote its lines.
 */
public final class TicketKeyStore {
    /** File name inside the state directory. */
    public static final String FILE = "ticket-keys";
    private static final String FORMAT = "ticket-keys/1";
    private static final Pattern LINE = Pattern.compile("(\\d{1,19}) ([0-9a-f]{" + 2 * SessionTicketKeys.SECRET_BYTES + "})");

    private final Path file;
    private final StateFiles files;

    /** A store whose saves go through {@code files} (replicated by hot-standby managers). */
    public TicketKeyStore(Path stateDirectory, StateFiles files) {
        this.file = stateDirectory.resolve(FILE);
        this.files = files;
    }

    public Path file() {
        return file;
    }

    /**
     * The stored secrets (none without a file).
     *
     * @throws StoreException naming the file when it is damaged, or when group or others may read it
     */
    public SessionTicketKeys load() {
        if (Files.exists(file)) {
            checkOwnerOnly(file);
        }
        List<SessionTicketKeys.Secret> out = new ArrayList<>();
        List<String> lines = ChecksummedLines.read(file, FORMAT, SessionTicketKeys.MAX_KEYS, 128);
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = LINE.matcher(lines.get(i));
            if (!m.matches()) {
                // never the line itself: it holds a secret
                throw new StoreException(file + ": damaged: entry " + (i + 1) + " is not '<created ms> <"
                        + 2 * SessionTicketKeys.SECRET_BYTES + " hex digits>'");
            }
            out.add(new SessionTicketKeys.Secret(Long.parseLong(m.group(1)), HexFormat.of().parseHex(m.group(2))));
        }
        return new SessionTicketKeys(out);
    }

    /** Atomically replaces the file with {@code keys} (owner-only); through Raft with hot-standby managers. */
    public void save(SessionTicketKeys keys) {
        List<String> lines = new ArrayList<>(keys.secrets().size());
        for (SessionTicketKeys.Secret s : keys.secrets()) {
            lines.add(s.createdMs() + " " + HexFormat.of().formatHex(s.bytes()));
        }
        ChecksummedLines.write(file, FORMAT, "TLS session-ticket secrets, newest first: <created ms> <secret>; keep "
                + "this file owner-only, like daemon.key", lines, files);
    }

    /** Refuses a file that group or others may read (POSIX file systems only). */
    static void checkOwnerOnly(Path file) {
        try {
            Set<PosixFilePermission> p = Files.getPosixFilePermissions(file);
            if (p.contains(PosixFilePermission.GROUP_READ) || p.contains(PosixFilePermission.OTHERS_READ)
                    || p.contains(PosixFilePermission.GROUP_WRITE) || p.contains(PosixFilePermission.OTHERS_WRITE)) {
                throw new StoreException(file + ": group or others may read or write it (mode "
                        + PosixFilePermissions.toString(p) + "): its secrets may be known; "
                        + "not used");
            }
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: nothing to check
        } catch (IOException e) {
            throw new StoreException(file + ": cannot read its permissions: " + e.getMessage(), e);
        }
    }
}
