package org.fabricmanager.daemon.ha;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import org.fabricmanager.daemon.store.DrainStore;
import org.fabricmanager.daemon.store.PendingSwitchStore;
import org.fabricmanager.daemon.store.QuarantineStore;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.daemon.store.TicketKeyStore;

/**
 * One replicated write: the new content of a state file, and the Raft term of the leader that asked for
 * it. The term fences a deposed leader: its entry, appended (if at all) in a later term, is not applied.
 * {@link #toString} never shows the content ({@code ticket-keys} holds secrets).
 *
 * @param term    the term in which the submitting daemon was leader
 * @param name    the state file's name, one of {@link #FILES}
 * @param content the file's whole new content
 */
record StateEntry(long term, String name, byte[] content) {
    /** The state files that are replicated; nothing else may be named (no path may leave the directory). */
    static final Set<String> FILES = Set.of("guid2index", "admitted-switches", RoutingStateStore.FILE,
            RoutingStateStore.DELTA_FILE, LeaderEndpoints.FILE,
            PendingSwitchStore.FILE, QuarantineStore.FILE, TicketKeyStore.FILE, DrainStore.FILE);
    private static final int FORMAT = 1;
    /**
     * Three times the stored routing of 5,120 switches (its size: docs/performance.md, "Memory and sizing"); a
     * larger state file is not replicated.
     */
    static final int MAX_CONTENT = 16 << 20;

    StateEntry {
        if (!FILES.contains(name)) {
            throw new IllegalArgumentException("not a replicated state file: " + name);
        }
    }

    @Override
    public String toString() {
        return "StateEntry[term " + term + ", " + name + ", " + content.length + " bytes]";
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(content.length + 64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeLong(term);
            out.writeUTF(name);
            out.writeInt(content.length);
            out.write(content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** @throws IOException for anything but an entry this version wrote */
    static StateEntry decode(DataInputStream in) throws IOException {
        int format = in.readUnsignedByte();
        if (format != FORMAT) {
            throw new IOException("replicated entry format " + format + ", this version reads " + FORMAT);
        }
        long term = in.readLong();
        String name = in.readUTF();
        if (!FILES.contains(name)) {
            throw new IOException("replicated entry names '" + name + "', not a state file");
        }
        int length = in.readInt();
        if (length < 0 || length > MAX_CONTENT) {
            throw new IOException("replicated entry of " + length + " bytes");
        }
        byte[] content = new byte[length];
        in.readFully(content);
        return new StateEntry(term, name, content);
    }
}
