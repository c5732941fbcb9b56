package org.fabricmanager.daemon.store;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PortRef;
import org.fabricmanager.topology.TopologyException;

/**
 * The switches and cables an operator drained for maintenance (state file {@code drained}, one
 * {@code switch <GUID> <since ms>} or {@code link <GUID> <port> <since ms>} per line under a checked header), and the
 * links the gray-link policy isolated ({@code isolated <GUID> <port> <peer GUID> <peer port> <since ms> <probation
 * ms>}; docs/operations.md, "Gray links"). Read
 * when a manager starts, so that a restarted daemon or a hot standby taking over keeps routing around them until an
 * operator undrains them. Rewritten atomically at each drain and undrain.
 */
public final class DrainStore {
    /** File name inside the state directory. */
    public static final String FILE = "drained";
    private static final String FORMAT = "drained/1";
    /** Far more than a fabric drains at once (every port of 256 switches of 256 ports). */
    public static final int MAX_ENTRIES = 1 << 16;

    /**
     * One drained element.
     *
     * @param guid        the switch, or the switch at the end of the cable the operator named
     * @param port        that end's port, 0 for a whole switch
     * @param sinceMillis when it was drained (wall clock)
     */
    public record Entry(long guid, int port, long sinceMillis, PortRef peer, long probationMs) {
        public Entry {
            if (port < 0 || port > 255) {
                throw new IllegalArgumentException("port " + port + " out of [0, 255]");
            }
            if (peer != null && (port == 0 || peer.port() < 1 || peer.port() > 255 || probationMs <= 0)) {
                throw new IllegalArgumentException("an isolated link has ports in [1, 255] and a probation");
            }
        }

        /** An operator's drain. */
        public Entry(long guid, int port, long sinceMillis) {
            this(guid, port, sinceMillis, null, 0);
        }

        /** Whether the gray-link policy isolated this link (not an operator). */
        public boolean isolated() {
            return peer != null;
        }

        /** Whether this is a whole switch (not a cable). */
        public boolean isSwitch() {
            return port == 0;
        }
    }

    private final Path file;
    private final StateFiles files;

    /** A store whose saves go through {@code files} (replicated by hot-standby managers). */
    public DrainStore(Path stateDirectory, StateFiles files) {
        this.file = stateDirectory.resolve(FILE);
        this.files = files;
    }

    public Path file() {
        return file;
    }

    /**
     * The drained elements (empty without a file).
     *
     * @throws StoreException naming the file and line of a damaged one
     */
    public List<Entry> load() {
        List<Entry> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String line : ChecksummedLines.read(file, FORMAT, MAX_ENTRIES, 128)) {
            String[] w = line.split(" ");
            try {
                Entry e;
                if (w.length == 3 && w[0].equals("switch")) {
                    e = new Entry(Guids.parse(w[1]), 0, Long.parseLong(w[2]));
                } else if (w.length == 4 && w[0].equals("link")) {
                    e = new Entry(Guids.parse(w[1]), Integer.parseInt(w[2]), Long.parseLong(w[3]));
                    if (e.port() == 0) {
                        throw new NumberFormatException("a link's port is at least 1");
                    }
                } else if (w.length == 7 && w[0].equals("isolated")) {
                    e = new Entry(Guids.parse(w[1]), Integer.parseInt(w[2]), Long.parseLong(w[5]),
                            new PortRef(Guids.parse(w[3]), Integer.parseInt(w[4])), Long.parseLong(w[6]));
                } else {
                    throw new NumberFormatException("expected 'switch <GUID> <since ms>', 'link <GUID> <port> <since ms>'"
                            + " or 'isolated <GUID> <port> <peer GUID> <peer port> <since ms> <probation ms>'");
                }
                if (!seen.add(e.guid() + "/" + e.port())) {
                    throw new NumberFormatException("listed twice");
                }
                out.add(e);
            } catch (TopologyException | IllegalArgumentException e) {
                throw new StoreException(file + ": damaged: '" + line + "' (" + e.getMessage() + ")");
            }
        }
        return out;
    }

    /** Atomically replaces the file with {@code drained}. */
    public void save(List<Entry> drained) {
        List<String> lines = new ArrayList<>(drained.size());
        for (Entry e : drained) {
            lines.add(e.isSwitch() ? "switch " + Guids.format(e.guid()) + " " + e.sinceMillis()
                    : e.isolated() ? "isolated " + Guids.format(e.guid()) + " " + e.port() + " "
                    + Guids.format(e.peer().guid()) + " " + e.peer().port() + " " + e.sinceMillis() + " " + e.probationMs()
                    : "link " + Guids.format(e.guid()) + " " + e.port() + " " + e.sinceMillis());
        }
        ChecksummedLines.write(file, FORMAT, "drained: switch GUID since | link GUID port since | isolated GUID port peerGUID peerPort since "
                + "probation (ms)",
                lines, files);
    }
}
