package org.fabricmanager.daemon.store;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.Protocol;

/**
 * The routing in force as its changes since the stored one ({@code routing.delta}): written as soon as a routing is
 * installed, where the whole tables ({@code routing.state}) are written only once a routing has stayed in force a
 * quiet second. A daemon restarted, or a standby taking over, within that second starts from the routing in force,
 * as the switches hold it, not from the one before. It names the stored routing it applies to by version and CRC; one
 * that names another is left from before the last whole write, and is not applied.
 *
 * <pre>
 * header: magic "FMRD" (u32) | format 1 (u16) | 0 (u16) | body bytes (u64) | uncompressed bytes (u64)
 *         | CRC-32C of the body (u32) | 0 (u32)
 * body (gzip): base version (u64) | base CRC-32C (u32) | fingerprint (str16) | version (u64) | engine (str16)
 *              | switches (u32) | destinations (u32) | switches x GUID (u64)
 *              | per switch: changed blocks (u32), then those blocks as index (u32) and entries (64, fewer for a
 *                row's last block); 0xFFFFFFFF instead: the whole row (destinations entries)
 * </pre>
 *
 * A switch absent from the stored routing, or tables of another length, take whole rows.
 */
final class RoutingDelta {
    static final int MAGIC = 0x464D5244; // "FMRD"
    static final int FORMAT = 1;
    private static final int WHOLE_ROW = -1;

    /** The stored routing a delta applies to, and the CRC-32C of its file's body. */
    record Base(RoutingState state, int crc) {
    }

    private RoutingDelta() {
    }

    /** The file content that turns {@code base} into {@code state}. */
    static byte[] encode(Base base, RoutingState state) throws IOException {
        ForwardingTables t = state.tables();
        ForwardingTables b = base.state().tables();
        int length = t.destinationCount();
        boolean sameLength = b.destinationCount() == length;
        ByteArrayOutputStream body = new ByteArrayOutputStream(1 << 12);
        GZIPOutputStream gz = FrameHeader.fastGzip(body);
        RoutingStateStore.CountingOutput counted = new RoutingStateStore.CountingOutput(gz);
        DataOutputStream out = new DataOutputStream(counted);
        out.writeLong(base.state().version());
        out.writeInt(base.crc());
        RoutingStateStore.writeString(out, state.fingerprint());
        out.writeLong(state.version());
        RoutingStateStore.writeString(out, state.engine());
        out.writeInt(t.switchCount());
        out.writeInt(length);
        for (int s = 0; s < t.switchCount(); s++) {
            out.writeLong(t.switchGuid(s));
        }
        int blocks = (length + LftBlock.SIZE - 1) / LftBlock.SIZE;
        int[] changed = new int[blocks];
        byte[] entries = new byte[Math.max(length, LftBlock.SIZE)];
        for (int s = 0; s < t.switchCount(); s++) {
            int p = sameLength ? b.rowOf(t.switchGuid(s)) : -1;
            if (p < 0) {
                out.writeInt(WHOLE_ROW);
                t.copyEntries(s, 0, entries, 0, length);
                out.write(entries, 0, length);
                continue;
            }
            int n = 0;
            for (int at = t.mismatch(s, b, p, 0); at >= 0; at = t.mismatch(s, b, p, (changed[n - 1] + 1) * LftBlock.SIZE)) {
                changed[n++] = at / LftBlock.SIZE;
            }
            out.writeInt(n);
            for (int i = 0; i < n; i++) {
                int from = changed[i] * LftBlock.SIZE;
                int count = Math.min(LftBlock.SIZE, length - from);
                out.writeInt(changed[i]);
                t.copyEntries(s, from, entries, 0, count);
                out.write(entries, 0, count);
            }
        }
        out.flush();
        gz.close();
        return FrameHeader.frame(MAGIC, FORMAT, body.toByteArray(), counted.count);
    }

    /**
     * The routing {@code content} (a delta file's) makes of {@code base}, or {@code null} when it applies to another
     * stored routing. Nothing in it is trusted: sizes are checked before anything is allocated, and every block and
     * row must fit the tables.
     *
     * @throws StoreException for a damaged or foreign file
     */
    static RoutingState apply(Path file, byte[] content, Base base, long maxPlainBytes) {
        FrameHeader h = FrameHeader.checked(file, content, content.length, MAGIC, FORMAT, "routing delta",
                maxPlainBytes, "changes");
        CRC32C crc = new CRC32C();
        crc.update(content, FrameHeader.BYTES, content.length - FrameHeader.BYTES);
        h.checkCrc(file, (int) crc.getValue());
        InputStream raw = new ByteArrayInputStream(content, FrameHeader.BYTES, content.length - FrameHeader.BYTES);
        try (DataInputStream in = new DataInputStream(new GZIPInputStream(raw, 1 << 16))) {
            long baseVersion = in.readLong();
            int baseCrc = in.readInt();
            if (baseVersion != base.state().version() || baseCrc != base.crc()) {
                return null;
            }
            return readChanges(file, in, base.state().tables(), h.plainBytes());
        } catch (IOException e) {
            throw FrameHeader.readFailure(file, e);
        }
    }

    private static RoutingState readChanges(Path file, DataInputStream in, ForwardingTables b, long plainBytes)
            throws IOException {
        String fingerprint = RoutingStateStore.readString(in);
        long version = in.readLong();
        String engine = RoutingStateStore.readString(in);
        long switches = in.readInt() & 0xffffffffL;
        long length = in.readInt() & 0xffffffffL;
        if (switches > RoutingStateStore.MAX_SWITCHES || length > Protocol.MAX_TABLE_LENGTH
                || switches * 8 + switches * 4 > plainBytes) {
            throw new StoreException(file + ": damaged: " + switches + " switches x " + length
                    + " destinations cannot be in " + plainBytes + " bytes");
        }
        int rows = (int) switches;
        int destinations = (int) length;
        long[] guids = new long[rows];
        for (int s = 0; s < rows; s++) {
            guids[s] = in.readLong();
            if (s > 0 && Long.compareUnsigned(guids[s - 1], guids[s]) >= 0) {
                throw new StoreException(file + ": damaged: switch GUIDs are not in ascending order");
            }
        }
        boolean sameLength = b.destinationCount() == destinations;
        int blocks = (destinations + LftBlock.SIZE - 1) / LftBlock.SIZE;
        byte[][] out = new byte[rows][];
        int[] reuse = new int[rows];
        long entries = 0;
        for (int s = 0; s < rows; s++) {
            int n = in.readInt();
            int p = sameLength ? b.rowOf(guids[s]) : -1;
            reuse[s] = -1;
            if (n == WHOLE_ROW) {
                entries += destinations;
                checkWithin(file, entries, plainBytes);
                out[s] = new byte[destinations];
                in.readFully(out[s]);
                continue;
            }
            if (p < 0 || n < 0 || n > blocks) {
                throw new StoreException(file + ": damaged: " + n + " changed blocks for switch "
                        + Long.toHexString(guids[s]) + (p < 0 ? ", which the stored routing does not have" : ""));
            }
            if (n == 0) {
                reuse[s] = p;
                continue;
            }
            byte[] row = b.copyRow(p);
            int last = -1;
            for (int i = 0; i < n; i++) {
                int block = in.readInt();
                if (block <= last || block >= blocks) {
                    throw new StoreException(file + ": damaged: block " + block + " of switch "
                            + Long.toHexString(guids[s]) + " (after block " + last + ", of " + blocks + ")");
                }
                last = block;
                int from = block * LftBlock.SIZE;
                int count = Math.min(LftBlock.SIZE, destinations - from);
                entries += count;
                checkWithin(file, entries, plainBytes);
                in.readFully(row, from, count);
            }
            out[s] = row;
        }
        if (in.read() != -1) {
            throw new StoreException(file + ": unexpected data after the changes");
        }
        // a reused row is the stored routing's very array (its place in out stays empty)
        ForwardingTables tables = sameLength ? ForwardingTables.ofRows(guids, out, destinations, b, reuse)
                : ForwardingTables.ofRows(guids, out, destinations);
        return new RoutingState(fingerprint, version, engine, tables);
    }

    private static void checkWithin(Path file, long entries, long plainBytes) {
        if (entries > plainBytes) {
            throw new StoreException(file + ": damaged: more entries than the header's " + plainBytes + " bytes");
        }
    }

}
