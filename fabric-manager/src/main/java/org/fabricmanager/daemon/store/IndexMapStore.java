package org.fabricmanager.daemon.store;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The destination-index file of the state directory ({@code guid2index}): a header line
 * {@code guid2index/2 entries=<n> crc32c=<8 hex digits>}, then one line per node,
 * {@code <GUID> <index>}, sorted by index, {@code #} comments. The header's count and CRC-32C (over
 * every byte after the header line) make a damaged file an error instead of a silent renumbering: a
 * file cut at a line boundary still parses, but no longer matches its header. Lines, indices and the
 * entry count are bounded before anything is allocated. Read at start-up, rewritten atomically whenever
 * new nodes get indices; a file of the older format {@code guid2index/1} (no header) is read and
 * rewritten in the new one.
 */
public final class IndexMapStore {
    /** File name inside the state directory. */
    public static final String FILE = "guid2index";
    /** Longest line accepted: a GUID, an index and some spaces, or a comment. */
    static final int MAX_LINE_BYTES = 256;
    private static final String LEGACY_HEADER = "# fabric-manager destination indices (guid2index/1)";
    private static final String COMMENT = "# fabric-manager destination indices: <node GUID> <index>";
    private static final Pattern HEADER = Pattern.compile("guid2index/2 entries=(\\d{1,9}) crc32c=([0-9a-f]{8})");
    private static final Logger LOG = LoggerFactory.getLogger(IndexMapStore.class);

    private final Path file;
    private final StateFiles files;

    public IndexMapStore(Path stateDirectory) {
        this(stateDirectory, StateFiles.LOCAL);
    }

    /** A store whose saves go through {@code files} (replicated by hot-standby managers). */
    public IndexMapStore(Path stateDirectory, StateFiles files) {
        this.file = stateDirectory.resolve(FILE);
        this.files = files;
    }

    public Path file() {
        return file;
    }

    /**
     * Reads the map; an absent file is an empty map.
     *
     * @throws StoreException naming the file (and line) of a damaged, truncated or foreign file
     */
    public DestinationIndexMap load() {
        if (!Files.exists(file)) {
            return new DestinationIndexMap();
        }
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            BoundedLines lines = new BoundedLines(in, MAX_LINE_BYTES);
            String first = lines.next();
            if (first == null) {
                throw damaged("empty file (no guid2index/2 header)");
            }
            if (first.startsWith(LEGACY_HEADER)) {
                DestinationIndexMap map = checkSpan(readEntries(lines, null, Integer.MAX_VALUE));
                LOG.warn("{}: format guid2index/1 has no checksum; rewriting it as guid2index/2 ({} entries)", file,
                        map.size());
                save(map);
                return map;
            }
            Matcher m = HEADER.matcher(first.trim());
            if (!m.matches()) {
                throw damaged("line 1: expected 'guid2index/2 entries=<n> crc32c=<hex>', got '" + abbreviate(first) + "'");
            }
            int entries = Integer.parseInt(m.group(1));
            if (entries > Protocol.MAX_TABLE_LENGTH) {
                throw damaged("line 1: " + entries + " entries, more than the " + Protocol.MAX_TABLE_LENGTH
                        + " destinations a table can hold");
            }
            CRC32C crc = new CRC32C();
            DestinationIndexMap map = readEntries(lines, crc, entries);
            if (map.size() != entries) {
                throw damaged(map.size() + " entries but the header says " + entries + " (truncated?)");
            }
            String actual = String.format(Locale.ROOT, "%08x", crc.getValue());
            if (!actual.equals(m.group(2))) {
                throw damaged("checksum " + actual + " does not match the header's " + m.group(2));
            }
            return checkSpan(map);
        } catch (BoundedLines.LineTooLongException e) {
            throw damaged(e.getMessage());
        } catch (IOException e) {
            throw new StoreException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private DestinationIndexMap readEntries(BoundedLines lines, CRC32C crc, int maxEntries) throws IOException {
        DestinationIndexMap map = new DestinationIndexMap();
        String line;
        while ((line = lines.next()) != null) {
            if (crc != null) {
                crc.update(lines.bytes(), 0, lines.length());
                crc.update('\n');
            }
            String t = line.trim();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            String[] parts = t.split("\\s+");
            if (parts.length != 2) {
                throw new StoreException(file + ":" + lines.number() + ": expected '<GUID> <index>', got '" + abbreviate(t) + "'");
            }
            if (map.size() >= maxEntries) {
                throw damaged("more entries than the header's " + maxEntries + " (line " + lines.number() + ")");
            }
            try {
                int index = Integer.parseInt(parts[1]);
                if (index >= Protocol.MAX_TABLE_LENGTH) {
                    throw new IllegalArgumentException("index " + index + " beyond the largest table ("
                            + Protocol.MAX_TABLE_LENGTH + " entries)");
                }
                map.put(Guids.parse(parts[0]), index);
            } catch (TopologyException | IllegalArgumentException e) {
                throw new StoreException(file + ":" + lines.number() + ": " + e.getMessage());
            }
        }
        return map;
    }

    /**
     * The map, if routing can use its indices: indices are given densely (the lowest free one to each new node), so a
     * file whose highest index lies beyond what a fabric of its nodes accepts ({@link Fabric#maxIndexSpan}) was not
     * written by the daemon, and every routing of it would fail.
     */
    private DestinationIndexMap checkSpan(DestinationIndexMap map) {
        int span = Fabric.maxIndexSpan(map.size());
        if (map.highestIndex() >= span) {
            throw new StoreException(file + ": index " + map.highestIndex() + " is too sparse for its " + map.size()
                    + " entries (routing accepts indices below " + span + "; the daemon gives them densely): restore the "
                    + "file from a backup, or delete it (every node then gets a new destination index)");
        }
        return map;
    }

    private StoreException damaged(String what) {
        return new StoreException(file + ": damaged: " + what + "; restore it from a backup (deleting it gives every "
                + "node a new destination index, so every table changes)");
    }

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "...";
    }

    /** Atomically replaces the file with {@code map}. */
    public void save(DestinationIndexMap map) {
        List<Map.Entry<Long, Integer>> entries = new ArrayList<>(map.asMap().entrySet());
        entries.sort(Map.Entry.comparingByValue());
        StringBuilder body = new StringBuilder(entries.size() * 22 + 64);
        body.append(COMMENT).append('\n');
        for (Map.Entry<Long, Integer> e : entries) {
            body.append(Guids.format(e.getKey())).append(' ').append(e.getValue()).append('\n');
        }
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        String header = String.format(Locale.ROOT, "guid2index/2 entries=%d crc32c=%08x\n", entries.size(), crc.getValue());
        byte[] head = header.getBytes(StandardCharsets.UTF_8);
        byte[] content = new byte[head.length + bytes.length];
        System.arraycopy(head, 0, content, 0, head.length);
        System.arraycopy(bytes, 0, content, head.length, bytes.length);
        try {
            files.write(file, content);
        } catch (IOException e) {
            throw new StoreException(file + ": cannot write: " + e.getMessage(), e);
        }
    }
}
