package org.fabricmanager.daemon.store;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

/**
 * The switches held pending for an admin's admission (state file {@code pending-switches}, one
 * {@code <GUID> <reason>} per line under a checked header). Admission control reads it at start, so that a
 * switch once held waits for an admin whatever manager judges it next: a hot standby taking over, or a
 * restarted daemon, would otherwise trust it during its first discovery (docs/security.md). Rewritten
 * atomically when a switch is first held or an admin admits one.
 */
public final class PendingSwitchStore {
    /** File name inside the state directory. */
    public static final String FILE = "pending-switches";
    private static final String FORMAT = "pending-switches/1";
    /** Held switches remembered at most; admission control stops adding beyond it (see AdmissionPolicy). */
    public static final int MAX_ENTRIES = 4_096;
    /** A reason is cut to this many characters: it is the daemon's own text, kept for the operator. */
    private static final int MAX_REASON = 200;

    private final Path file;
    private final StateFiles files;

    /** A store whose saves go through {@code files} (replicated by hot-standby managers). */
    public PendingSwitchStore(Path stateDirectory, StateFiles files) {
        this.file = stateDirectory.resolve(FILE);
        this.files = files;
    }

    public Path file() {
        return file;
    }

    /**
     * The held GUIDs with the reason each was first held for (empty without a file).
     *
     * @throws StoreException naming the file of a damaged one
     */
    public Map<Long, String> load() {
        Map<Long, String> out = new TreeMap<>(Long::compareUnsigned);
        for (String line : ChecksummedLines.read(file, FORMAT, MAX_ENTRIES, 64 + 4 * MAX_REASON)) {
            int space = line.indexOf(' ');
            String guid = space < 0 ? line : line.substring(0, space);
            try {
                out.put(Guids.parse(guid), space < 0 ? "" : line.substring(space + 1));
            } catch (TopologyException e) {
                throw new StoreException(file + ": damaged: '" + guid + "' is not a GUID");
            }
        }
        return out;
    }

    /** Atomically replaces the file with {@code held}. */
    public void save(Map<Long, String> held) {
        Map<Long, String> sorted = new TreeMap<>(Long::compareUnsigned);
        sorted.putAll(held);
        List<String> lines = new ArrayList<>(sorted.size());
        for (Map.Entry<Long, String> e : sorted.entrySet()) {
            String reason = e.getValue().replace('\n', ' ').replace('\r', ' ');
            lines.add(Guids.format(e.getKey()) + " " + (reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason));
        }
        ChecksummedLines.write(file, FORMAT, "switches held for an admin's admission: <switch GUID> <reason>", lines, files);
    }
}
