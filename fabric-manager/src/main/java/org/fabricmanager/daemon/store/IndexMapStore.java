package org.fabricmanager.daemon.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

/**
 * The destination-index file of the state directory ({@code guid2index}): one line per node,
 * {@code <GUID> <index>}, sorted by index, {@code #} comments. Read at start-up, rewritten atomically
 * whenever new nodes get indices.
 */
public final class IndexMapStore {
    /** File name inside the state directory. */
    public static final String FILE = "guid2index";
    private static final String HEADER = "# fabric-manager destination indices (guid2index/1): <node GUID> <index>";

    private final Path file;

    public IndexMapStore(Path stateDirectory) {
        this.file = stateDirectory.resolve(FILE);
    }

    public Path file() {
        return file;
    }

    /**
     * Reads the map; an absent file is an empty map.
     *
     * @throws StoreException naming the file and line of a bad entry
     */
    public DestinationIndexMap load() {
        DestinationIndexMap map = new DestinationIndexMap();
        if (!Files.exists(file)) {
            return map;
        }
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = in.readLine()) != null) {
                number++;
                String t = line.trim();
                if (t.isEmpty() || t.startsWith("#")) {
                    continue;
                }
                String[] parts = t.split("\\s+");
                if (parts.length != 2) {
                    throw new StoreException(file + ":" + number + ": expected '<GUID> <index>', got '" + t + "'");
                }
                try {
                    map.put(Guids.parse(parts[0]), Integer.parseInt(parts[1]));
                } catch (TopologyException | IllegalArgumentException e) {
                    throw new StoreException(file + ":" + number + ": " + e.getMessage());
                }
            }
        } catch (IOException e) {
            throw new StoreException(file + ": cannot read: " + e.getMessage(), e);
        }
        return map;
    }

    /** Atomically replaces the file with {@code map}. */
    public void save(DestinationIndexMap map) {
        List<Map.Entry<Long, Integer>> entries = new ArrayList<>(map.asMap().entrySet());
        entries.sort(Map.Entry.comparingByValue());
        try {
            AtomicFiles.write(file, out -> {
                Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
                w.write(HEADER);
                w.write('\n');
                for (Map.Entry<Long, Integer> e : entries) {
                    w.write(Guids.format(e.getKey()));
                    w.write(' ');
                    w.write(Integer.toString(e.getValue()));
                    w.write('\n');
                }
                w.flush();
            });
        } catch (IOException e) {
            throw new StoreException(file + ": cannot write: " + e.getMessage(), e);
        }
    }
}
