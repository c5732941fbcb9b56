package org.fabricmanager.daemon.store;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipException;
import org.fabricmanager.routing.ForwardingTables;

/**
 * The stored routing of the state directory ({@code routing.state}): a gzip-compressed binary file
 * (the gzip trailer's CRC-32 guards the content) holding the fabric fingerprint, the table version,
 * the engine and every switch's table. Written atomically after each routing; read at start-up.
 */
public final class RoutingStateStore {
    /** File name inside the state directory. */
    public static final String FILE = "routing.state";
    private static final int MAGIC = 0x464D5253; // "FMRS"
    private static final int FORMAT = 1;

    private final Path file;

    public RoutingStateStore(Path stateDirectory) {
        this.file = stateDirectory.resolve(FILE);
    }

    public Path file() {
        return file;
    }

    /**
     * Reads the stored routing, if any.
     *
     * @throws StoreException for a damaged or foreign file (the daemon then routes from scratch)
     */
    public Optional<RoutingState> load() {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try (InputStream raw = Files.newInputStream(file);
             DataInputStream in = new DataInputStream(new BufferedInputStream(new GZIPInputStream(raw, 1 << 16), 1 << 16))) {
            if (in.readInt() != MAGIC) {
                throw new StoreException(file + ": not a fabric-manager routing state file");
            }
            int format = in.readUnsignedShort();
            if (format != FORMAT) {
                throw new StoreException(file + ": format " + format + " (this version reads " + FORMAT + ")");
            }
            String fingerprint = readString(in);
            long version = in.readLong();
            String engine = readString(in);
            int switches = in.readInt();
            int destinations = in.readInt();
            if (switches < 0 || destinations < 0) {
                throw new StoreException(file + ": negative sizes");
            }
            long[] guids = new long[switches];
            for (int s = 0; s < switches; s++) {
                guids[s] = in.readLong();
            }
            ForwardingTables.Builder b = ForwardingTables.builder(guids, destinations);
            for (int s = 0; s < switches; s++) {
                in.readFully(b.row(s));
            }
            if (in.read() != -1) {
                throw new StoreException(file + ": unexpected data after the tables");
            }
            return Optional.of(new RoutingState(fingerprint, version, engine, b.build()));
        } catch (EOFException e) {
            throw new StoreException(file + ": truncated", e);
        } catch (ZipException e) {
            throw new StoreException(file + ": damaged (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            throw new StoreException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** Atomically replaces the stored routing. */
    public void save(RoutingState state) {
        ForwardingTables t = state.tables();
        try {
            AtomicFiles.write(file, raw -> {
                // fastest level: written after every routing on a 2-core machine; tables compress ~250x anyway
                GZIPOutputStream gz = new GZIPOutputStream(raw, 1 << 16) {
                    {
                        def.setLevel(Deflater.BEST_SPEED);
                    }
                };
                DataOutputStream out = new DataOutputStream(gz);
                out.writeInt(MAGIC);
                out.writeShort(FORMAT);
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
                    t.copyEntries(s, 0, row, 0, row.length);
                    out.write(row);
                }
                out.flush();
                gz.finish();
            });
        } catch (IOException e) {
            throw new StoreException(file + ": cannot write: " + e.getMessage(), e);
        }
    }

    private static String readString(DataInputStream in) throws IOException {
        int n = in.readUnsignedShort();
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeShort(b.length);
        out.write(b);
    }
}
