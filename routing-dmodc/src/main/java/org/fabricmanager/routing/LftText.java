package org.fabricmanager.routing;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

/**
 * Reader and writer of {@code lft-text/1} (see {@code docs/formats.md}): one line per switch
 * in ascending GUID order, the GUID then one output port per destination index, {@code 255} for
 * no route; {@code #} starts a comment.
 */
public final class LftText {
    /** The header comment's first word. */
    public static final String FORMAT = "lft-text/1";

    private LftText() {
    }

    /** Writes {@code tables} with a header naming the engine. */
    public static void write(ForwardingTables tables, String engine, Writer out) throws IOException {
        BufferedWriter w = out instanceof BufferedWriter b ? b : new BufferedWriter(out, 1 << 16);
        w.write("# " + FORMAT + " engine=" + engine + " switches=" + tables.switchCount() + " nodes="
                + tables.destinationCount() + "\n");
        Integer[] order = new Integer[tables.switchCount()];
        for (int s = 0; s < order.length; s++) {
            order[s] = s;
        }
        Arrays.sort(order, (x, y) -> Long.compareUnsigned(tables.switchGuid(x), tables.switchGuid(y)));
        StringBuilder line = new StringBuilder(tables.destinationCount() * 4 + 24);
        for (int s : order) {
            line.setLength(0);
            line.append(Guids.format(tables.switchGuid(s)));
            for (int d = 0; d < tables.destinationCount(); d++) {
                line.append(' ').append(tables.port(s, d));
            }
            line.append('\n');
            w.append(line);
        }
        w.flush();
    }

    /** Writes {@code tables} to {@code file}, replacing it. */
    public static void write(ForwardingTables tables, String engine, Path file) {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(tables, engine, w);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot write: " + e.getMessage(), e);
        }
    }

    /** Reads a file; errors name the file and line. */
    public static ForwardingTables read(Path file) {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(r, file.toString());
        } catch (NoSuchFileException e) {
            throw new TopologyException(file + ": no such file");
        } catch (IOException e) {
            throw new TopologyException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /**
     * Reads tables; every line must have the same number of entries and switches must be in
     * ascending GUID order without repeats.
     *
     * @throws TopologyException naming {@code source} and the line
     */
    public static ForwardingTables read(Reader in, String source) throws IOException {
        BufferedReader r = in instanceof BufferedReader b ? b : new BufferedReader(in);
        List<Long> guids = new ArrayList<>();
        List<byte[]> rows = new ArrayList<>();
        int width = -1;
        String line;
        int lineNo = 0;
        while ((line = r.readLine()) != null) {
            lineNo++;
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            String[] fields = t.split("\\s+");
            long guid;
            try {
                guid = Guids.parse(fields[0]);
            } catch (TopologyException e) {
                throw new TopologyException(source + ":" + lineNo + ": " + e.getMessage());
            }
            if (!guids.isEmpty() && Long.compareUnsigned(guids.get(guids.size() - 1), guid) >= 0) {
                throw new TopologyException(source + ":" + lineNo + ": switch " + fields[0]
                        + " is out of ascending GUID order or repeated");
            }
            int entries = fields.length - 1;
            if (width < 0) {
                width = entries;
            } else if (entries != width) {
                throw new TopologyException(source + ":" + lineNo + ": switch " + fields[0] + " has " + entries
                        + " entries, earlier lines have " + width);
            }
            byte[] row = new byte[entries];
            for (int d = 0; d < entries; d++) {
                int port;
                try {
                    port = Integer.parseInt(fields[d + 1]);
                } catch (NumberFormatException e) {
                    port = -1;
                }
                if (port < 0 || port > 255) {
                    throw new TopologyException(source + ":" + lineNo + ": entry " + d + " of switch " + fields[0]
                            + " is '" + fields[d + 1] + "', not a port in [0, 255]");
                }
                row[d] = (byte) port;
            }
            guids.add(guid);
            rows.add(row);
        }
        long[] guidArray = new long[guids.size()];
        for (int i = 0; i < guidArray.length; i++) {
            guidArray[i] = guids.get(i);
        }
        ForwardingTables.Builder builder = ForwardingTables.builder(guidArray, Math.max(width, 0));
        for (int s = 0; s < rows.size(); s++) {
            System.arraycopy(rows.get(s), 0, builder.row(s), 0, rows.get(s).length);
        }
        return builder.build();
    }
}
