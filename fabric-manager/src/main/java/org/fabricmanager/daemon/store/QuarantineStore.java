package org.fabricmanager.daemon.store;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

/**
 * The switch ports quarantined as flapping (state file {@code flap-quarantine}, one
 * {@code <GUID> <port> <downs> <since ms>} per line under a checked header). Read when a manager starts, so
 * that a hot standby taking over (or a restarted daemon) keeps a flapping link out of the fabric instead of
 * routing it back in until it flaps again. Rewritten atomically when a port is quarantined or released.
 */
public final class QuarantineStore {
    /** File name inside the state directory. */
    public static final String FILE = "flap-quarantine";
    private static final String FORMAT = "flap-quarantine/1";
    /** Far more ports than a fabric quarantines at once (two per link). */
    private static final int MAX_ENTRIES = 1 << 16;

    /**
     * One quarantined port.
     *
     * @param guid        the switch
     * @param port        its port
     * @param flaps       the downs counted on it
     * @param sinceMillis when it was quarantined (wall clock)
     */
    public record Entry(long guid, int port, int flaps, long sinceMillis) {
    }

    private final Path file;
    private final StateFiles files;

    /** A store whose saves go through {@code files} (replicated by hot-standby managers). */
    public QuarantineStore(Path stateDirectory, StateFiles files) {
        this.file = stateDirectory.resolve(FILE);
        this.files = files;
    }

    public Path file() {
        return file;
    }

    /**
     * The quarantined ports (empty without a file).
     *
     * @throws StoreException naming the file and line of a damaged one
     */
    public List<Entry> load() {
        List<Entry> out = new ArrayList<>();
        for (String line : ChecksummedLines.read(file, FORMAT, MAX_ENTRIES, 128)) {
            String[] w = line.split(" ");
            try {
                if (w.length != 4) {
                    throw new NumberFormatException("4 fields expected");
                }
                Entry e = new Entry(Guids.parse(w[0]), Integer.parseInt(w[1]), Integer.parseInt(w[2]), Long.parseLong(w[3]));
                if (e.port() < 0 || e.port() > 255 || e.flaps() < 0) {
                    throw new NumberFormatException("port or count out of range");
                }
                out.add(e);
            } catch (TopologyException | NumberFormatException e) {
                throw new StoreException(file + ": damaged: '" + line + "' is not <GUID> <port> <downs> <since ms> ("
                        + e.getMessage() + ")");
            }
        }
        return out;
    }

    /** Atomically replaces the file with {@code ports}. */
    public void save(List<Entry> ports) {
        List<String> lines = new ArrayList<>(ports.size());
        for (Entry e : ports) {
            lines.add(Guids.format(e.guid()) + " " + e.port() + " " + e.flaps() + " " + e.sinceMillis());
        }
        ChecksummedLines.write(file, FORMAT, "ports quarantined as flapping: <switch GUID> <port> <downs> <since ms>",
                lines, files);
    }
}
