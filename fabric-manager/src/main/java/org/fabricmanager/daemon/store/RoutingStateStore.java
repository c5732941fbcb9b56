package org.fabricmanager.daemon.store;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32C;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.Protocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stored routing of the state directory ({@code routing.state}): a 32-byte header, then a
 * gzip-compressed body holding the fabric fingerprint, the table version, the engine and every switch's
 * table. Written atomically once a routing has stayed in force a quiet second; each routing installed before
 * that is written at once as its changes since ({@link RoutingDelta}, {@code routing.delta}). Read at start-up, the
 * changes applied.
 *
 * <pre>
 * header: magic "FMRS" (u32) | format 2 (u16) | 0 (u16) | body bytes (u64) | uncompressed bytes (u64)
 *         | CRC-32C of the body (u32) | 0 (u32)
 * body (gzip): fingerprint (str16) | version (u64) | engine (str16) | switches (u32) | destinations (u32)
 *              | switches x GUID (u64) | switches x destinations entries (u8)
 * </pre>
 *
 * Nothing in the file is trusted before it is checked: the body's length must be the file's, its CRC
 * must match (computed while streaming, nothing allocated), the uncompressed size must be one deflate
 * can produce from that many bytes (at most {@value FrameHeader#MAX_DEFLATE_RATIO}:1) and must fit the heap, and the
 * table sizes must add up to exactly that size, before the tables are allocated. Any failure is a
 * {@link StoreException}; the daemon then logs it and routes from scratch.
 */
public final class RoutingStateStore {
    /** File name inside the state directory. */
    public static final String FILE = "routing.state";
    /** The changes of the routings installed since ({@link RoutingDelta}), inside the state directory. */
    public static final String DELTA_FILE = "routing.delta";
    static final int MAGIC = 0x464D5253; // "FMRS"
    static final int FORMAT = 2;
    static final int HEADER_BYTES = FrameHeader.BYTES;
    /** Most switches a stored routing may hold. */
    static final int MAX_SWITCHES = 1 << 20;

    private static final Logger LOG = LoggerFactory.getLogger(RoutingStateStore.class);

    private final Path file;
    private final long maxTableBytes;
    private final StateFiles files;
    /** What {@code routing.state} holds, as read or last written ({@link #saveChanges} writes against it). */
    private volatile RoutingDelta.Base onDisk;

    public RoutingStateStore(Path stateDirectory) {
        this(stateDirectory, Runtime.getRuntime().maxMemory() / 2, StateFiles.LOCAL);
    }

    /** A store whose saves go through {@code files} (replicated by hot-standby managers). */
    public RoutingStateStore(Path stateDirectory, StateFiles files) {
        this(stateDirectory, Runtime.getRuntime().maxMemory() / 2, files);
    }

    /** @param maxTableBytes largest uncompressed body accepted (default: half the heap) */
    RoutingStateStore(Path stateDirectory, long maxTableBytes) {
        this(stateDirectory, maxTableBytes, StateFiles.LOCAL);
    }

    private RoutingStateStore(Path stateDirectory, long maxTableBytes, StateFiles files) {
        this.file = stateDirectory.resolve(FILE);
        this.maxTableBytes = maxTableBytes;
        this.files = files;
    }

    public Path file() {
        return file;
    }

    /**
     * Reads the stored routing, if any, with the changes of {@code routing.delta} applied when that file holds the
     * routing installed after it ({@link RoutingDelta}); a damaged delta is ignored with a warning (the stored routing
     * is still good). Call before any save: the routing read is the one later deltas are written against.
     *
     * @throws StoreException for a damaged or foreign {@code routing.state} (the daemon then routes from scratch)
     */
    public Optional<RoutingState> load() {
        onDisk = null;
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        RoutingDelta.Base base = loadStored();
        onDisk = base;
        Path deltaFile = file.resolveSibling(DELTA_FILE);
        if (!Files.exists(deltaFile)) {
            return Optional.of(base.state());
        }
        try {
            if (Files.size(deltaFile) > maxTableBytes) {
                throw new StoreException(deltaFile + ": " + Files.size(deltaFile) + " bytes, more than the " + maxTableBytes
                        + " this daemon allows for tables");
            }
            RoutingState newer = RoutingDelta.apply(deltaFile, Files.readAllBytes(deltaFile), base, maxTableBytes);
            if (newer == null) {
                return Optional.of(base.state()); // from before the last whole write
            }
            LOG.info("routing v{} read as v{} and the changes of {} since", base.state().version(), newer.version(),
                    DELTA_FILE);
            return Optional.of(newer);
        } catch (IOException | StoreException e) {
            LOG.warn("ignoring {} (starting from routing v{}, which {} holds): {}", deltaFile, base.state().version(),
                    FILE, e.getMessage());
            return Optional.of(base.state());
        }
    }

    private RoutingDelta.Base loadStored() {
        try {
            long size = Files.size(file);
            byte[] h;
            try (InputStream raw = Files.newInputStream(file)) {
                h = raw.readNBytes(HEADER_BYTES);
            }
            if (h.length >= 2 && (h[0] & 0xff) == 0x1f && (h[1] & 0xff) == 0x8b) {
                throw new StoreException(file + ": format 1 (before checksums); the routing is computed anew");
            }
            FrameHeader header = FrameHeader.checked(file, h, size, MAGIC, FORMAT, "routing state", maxTableBytes,
                    "tables");
            header.checkCrc(file, crcOfBody());
            return new RoutingDelta.Base(readBody(header.plainBytes()), header.crc());
        } catch (IOException e) {
            throw FrameHeader.readFailure(file, e);
        }
    }

    private int crcOfBody() throws IOException {
        CRC32C crc = new CRC32C();
        byte[] buf = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            in.skipNBytes(HEADER_BYTES);
            int n;
            while ((n = in.read(buf)) > 0) {
                crc.update(buf, 0, n);
            }
        }
        return (int) crc.getValue();
    }

    private RoutingState readBody(long plainBytes) throws IOException {
        try (InputStream raw = Files.newInputStream(file)) {
            raw.skipNBytes(HEADER_BYTES);
            DataInputStream in = new DataInputStream(new BufferedInputStream(new GZIPInputStream(raw, 1 << 16), 1 << 16));
            String fingerprint = readString(in);
            long version = in.readLong();
            String engine = readString(in);
            long switches = in.readInt() & 0xffffffffL;
            long destinations = in.readInt() & 0xffffffffL;
            if (switches > MAX_SWITCHES || destinations > Protocol.MAX_TABLE_LENGTH) {
                throw new StoreException(file + ": damaged: " + switches + " switches x " + destinations
                        + " destinations is beyond any fabric (at most " + MAX_SWITCHES + " x " + Protocol.MAX_TABLE_LENGTH + ")");
            }
            long expected = 2L + utf8Length(fingerprint) + 8 + 2 + utf8Length(engine) + 4 + 4 + switches * 8
                    + switches * destinations;
            if (expected != plainBytes) {
                throw new StoreException(file + ": damaged: " + switches + " switches x " + destinations
                        + " destinations need " + expected + " bytes, the header announces " + plainBytes);
            }
            long[] guids = new long[(int) switches];
            for (int s = 0; s < switches; s++) {
                guids[s] = in.readLong();
            }
            ForwardingTables.Builder b = ForwardingTables.builder(guids, (int) destinations);
            for (int s = 0; s < switches; s++) {
                in.readFully(b.row(s));
            }
            if (in.read() != -1) {
                throw new StoreException(file + ": unexpected data after the tables");
            }
            return new RoutingState(fingerprint, version, engine, b.build());
        }
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /** Atomically replaces the stored routing. */
    public void save(RoutingState state) {
        save(state, () -> false);
    }

    /**
     * Atomically replaces the stored routing, unless {@code abandoned} says so before the last table is compressed
     * (asked before each table): the file is then left as it was.
     *
     * @return true when the file was written, false when abandoned
     */
    public boolean save(RoutingState state, BooleanSupplier abandoned) {
        RoutingDelta.Base base = onDisk;
        if (base != null && base.state().version() == state.version() && base.state().tables() == state.tables()) {
            return true; // written whole already (a fabric's first routing is, as soon as it is installed)
        }
        ForwardingTables t = state.tables();
        try {
            ByteArrayOutputStream body = new ByteArrayOutputStream(1 << 16);
            GZIPOutputStream gz = FrameHeader.fastGzip(body);
            CountingOutput counted = new CountingOutput(gz);
            DataOutputStream out = new DataOutputStream(counted);
            writeString(out, state.fingerprint());
            out.writeLong(state.version());
            writeString(out, state.engine());
            out.writeInt(t.switchCount());
            out.writeInt(t.destinationCount());
            for (int s = 0; s < t.switchCount(); s++) {
                out.writeLong(t.switchGuid(s));
            }
            byte[] row = new byte[t.destinationCount()];
            for (int s = 0; s < t.switchCount(); s++) {
                if (abandoned.getAsBoolean()) {
                    gz.close(); // frees the deflater's native memory now, not at the next collection
                    return false;
                }
                t.copyEntries(s, 0, row, 0, row.length);
                out.write(row);
            }
            out.flush();
            gz.close();
            byte[] content = FrameHeader.frame(MAGIC, FORMAT, body.toByteArray(), counted.count);
            files.write(file, content);
            onDisk = new RoutingDelta.Base(state, FrameHeader.parse(content).crc());
            return true;
        } catch (IOException e) {
            throw new StoreException(file + ": cannot write: " + e.getMessage(), e);
        }
    }

    /**
     * Writes {@code state} as its changes since the routing {@code routing.state} holds ({@code routing.delta}), so
     * that a successor starts from it before its whole tables are written; whole when none is stored yet. Nothing when
     * the stored one is this one or newer. Call on the thread that saves.
     *
     * @return true when a file was written
     */
    public boolean saveChanges(RoutingState state) {
        RoutingDelta.Base base = onDisk;
        if (base == null) {
            return save(state, () -> false);
        }
        if (base.state().version() >= state.version()) {
            return false;
        }
        Path deltaFile = file.resolveSibling(DELTA_FILE);
        try {
            files.write(deltaFile, RoutingDelta.encode(base, state));
            return true;
        } catch (IOException e) {
            throw new StoreException(deltaFile + ": cannot write: " + e.getMessage(), e);
        }
    }

    static String readString(DataInputStream in) throws IOException {
        int n = in.readUnsignedShort();
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeShort(b.length);
        out.write(b);
    }

    /** Counts the uncompressed bytes written. */
    static final class CountingOutput extends FilterOutputStream {
        long count;

        CountingOutput(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }
    }
}
