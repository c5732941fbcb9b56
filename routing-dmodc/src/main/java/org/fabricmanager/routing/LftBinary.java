package org.fabricmanager.routing;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.fabricmanager.topology.TopologyException;

/**
 * Reader and writer of {@code lft-bin/1} (see {@code docs/formats.md}): the tables as bytes, so that reading them
 * back costs a file read, not a parse (at 65,536 nodes, 335 MB of entries instead of 1 GB of text). A header
 * (magic, version, counts, engine), the switch GUIDs in ascending order, per switch the number of its row among the
 * distinct rows, then each distinct row once, one byte per destination index ({@code 255}: no route). All integers
 * little-endian.
 */
public final class LftBinary {
    /** The format's name, as {@code --lft-format} spells it without the version. */
    public static final String FORMAT = "lft-bin/1";
    /** The first eight bytes of every {@code lft-bin} file. */
    static final byte[] MAGIC = "FM-LFT\r\n".getBytes(StandardCharsets.US_ASCII);
    /** The version this release writes and reads. */
    static final int VERSION = 1;
    private static final int LONGEST_ENGINE_NAME = 255;

    private LftBinary() {
    }

    /** True when {@code file} starts with the {@code lft-bin} magic (whatever its version). */
    public static boolean isBinary(Path file) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer head = ByteBuffer.allocate(MAGIC.length);
            while (head.hasRemaining() && ch.read(head) >= 0) {
                // a short read of a regular file is rare but allowed
            }
            return !head.hasRemaining() && Arrays.equals(head.array(), MAGIC);
        } catch (NoSuchFileException e) {
            throw new TopologyException(file + ": no such file");
        } catch (IOException e) {
            throw new TopologyException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** Writes {@code tables} to {@code file}, replacing it, with the engine's name in the header. */
    public static void write(ForwardingTables tables, String engine, Path file) {
        byte[] name = engine.getBytes(StandardCharsets.UTF_8);
        if (name.length > LONGEST_ENGINE_NAME) {
            throw new IllegalArgumentException("engine name longer than " + LONGEST_ENGINE_NAME + " bytes: " + engine);
        }
        int switches = tables.switchCount();
        int destinations = tables.destinationCount();
        Integer[] order = new Integer[switches];
        for (int s = 0; s < switches; s++) {
            order[s] = s;
        }
        Arrays.sort(order, (x, y) -> Long.compareUnsigned(tables.switchGuid(x), tables.switchGuid(y)));
        // distinct rows by content: switches that route alike (tables shared by the engine, or equal by chance) are
        // written once
        Map<RowKey, Integer> distinct = new HashMap<>();
        int[] rowOf = new int[switches];
        int[] firstSwitch = new int[switches];
        for (int i = 0; i < switches; i++) {
            byte[] row = tables.copyRow(order[i]);
            Integer known = distinct.putIfAbsent(new RowKey(row), distinct.size());
            rowOf[i] = known != null ? known : distinct.size() - 1;
            if (known == null) {
                firstSwitch[rowOf[i]] = order[i];
            }
        }
        int rows = distinct.size();
        ByteBuffer head = ByteBuffer.allocate(MAGIC.length + 4 * 4 + 1 + name.length + switches * (8 + 4))
                .order(ByteOrder.LITTLE_ENDIAN);
        head.put(MAGIC).putInt(VERSION).putInt(switches).putInt(destinations).putInt(rows)
                .put((byte) name.length).put(name);
        for (int i = 0; i < switches; i++) {
            head.putLong(tables.switchGuid(order[i]));
        }
        for (int i = 0; i < switches; i++) {
            head.putInt(rowOf[i]);
        }
        head.flip();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            writeFully(ch, head);
            byte[] row = new byte[destinations];
            for (int r = 0; r < rows; r++) {
                tables.copyEntries(firstSwitch[r], 0, row, 0, destinations);
                writeFully(ch, ByteBuffer.wrap(row));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot write: " + e.getMessage(), e);
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            ch.write(buffer);
        }
    }

    /**
     * Reads a file written by {@link #write}; switches that share a distinct row share its array.
     *
     * @throws TopologyException naming the file: not {@code lft-bin}, another version, counts out of range, GUIDs
     *                           not ascending, a row number out of range, or the file shorter or longer than its header
     *                           says
     */
    public static ForwardingTables read(Path file) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer fixed = readFully(ch, MAGIC.length + 4 * 4 + 1, file);
            byte[] magic = new byte[MAGIC.length];
            fixed.get(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new TopologyException(file + ": not an " + FORMAT + " file (no magic)");
            }
            int version = fixed.getInt();
            if (version != VERSION) {
                throw new TopologyException(file + ": lft-bin version " + version + ", this release reads version "
                        + VERSION);
            }
            int switches = fixed.getInt();
            int destinations = fixed.getInt();
            int rows = fixed.getInt();
            int nameLength = fixed.get() & 0xff;
            if (switches < 0 || destinations < 0 || rows < 0 || rows > switches) {
                throw new TopologyException(file + ": header counts out of range (" + switches + " switches, "
                        + destinations + " destinations, " + rows + " distinct rows)");
            }
            long expected = fixed.capacity() + nameLength + (long) switches * 12 + (long) rows * destinations;
            if (ch.size() != expected) {
                throw new TopologyException(file + ": " + ch.size() + " bytes, its header says " + expected);
            }
            ByteBuffer index = readFully(ch, nameLength + switches * 12, file);
            index.position(nameLength);
            long[] guids = new long[switches];
            for (int s = 0; s < switches; s++) {
                guids[s] = index.getLong();
                if (s > 0 && Long.compareUnsigned(guids[s - 1], guids[s]) >= 0) {
                    throw new TopologyException(file + ": switch " + s + ": GUIDs not in ascending order");
                }
            }
            int[] rowOf = new int[switches];
            for (int s = 0; s < switches; s++) {
                rowOf[s] = index.getInt();
                if (rowOf[s] < 0 || rowOf[s] >= rows) {
                    throw new TopologyException(file + ": switch " + s + ": row " + rowOf[s] + " of " + rows);
                }
            }
            byte[][] distinct = new byte[rows][];
            for (int r = 0; r < rows; r++) {
                distinct[r] = new byte[destinations];
                ByteBuffer into = ByteBuffer.wrap(distinct[r]);
                while (into.hasRemaining()) {
                    if (ch.read(into) < 0) {
                        throw new TopologyException(file + ": ends inside row " + r);
                    }
                }
            }
            byte[][] table = new byte[switches][];
            for (int s = 0; s < switches; s++) {
                table[s] = distinct[rowOf[s]];
            }
            return ForwardingTables.ofRows(guids, table, destinations);
        } catch (NoSuchFileException e) {
            throw new TopologyException(file + ": no such file");
        } catch (IOException e) {
            throw new TopologyException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static ByteBuffer readFully(FileChannel ch, int length, Path file) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException(file + " ends inside its header");
            }
        }
        return b.flip();
    }

    /** A row's entries as a map key, compared by content. */
    private record RowKey(byte[] entries) {
        @Override
        public boolean equals(Object o) {
            return o instanceof RowKey k && Arrays.equals(entries, k.entries);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(entries);
        }
    }

    /** Reads tables in either format, told apart by the {@code lft-bin} magic. */
    public static ForwardingTables readEither(Path file) {
        return isBinary(file) ? read(file) : LftText.read(file);
    }
}
