package org.fabricmanager.daemon.store;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

/**
 * The switches the daemon has admitted into the fabric (state file {@code admitted-switches}, one GUID per
 * line under a checked header): admission control lets a GUID it already knows in, and holds any other
 * one pending (docs/security.md). Rewritten atomically when a switch is admitted for the first time.
 */
public final class AdmittedSwitchStore {
    /** File name inside the state directory. */
    public static final String FILE = "admitted-switches";
    private static final String FORMAT = "admitted-switches/1";
    /** More switches than any fabric has: a header claiming more is damage. */
    private static final int MAX_ENTRIES = 1 << 20;

    private final Path file;
    private final StateFiles files;

    public AdmittedSwitchStore(Path stateDirectory) {
        this(stateDirectory, StateFiles.LOCAL);
    }

    /** A store whose saves go through {@code files} (replicated by hot-standby managers). */
    public AdmittedSwitchStore(Path stateDirectory, StateFiles files) {
        this.file = stateDirectory.resolve(FILE);
        this.files = files;
    }

    public Path file() {
        return file;
    }

    /**
     * The admitted GUIDs (empty without a file).
     *
     * @throws StoreException naming the file and line of a damaged one
     */
    public Set<Long> load() {
        Set<Long> out = new TreeSet<>(Long::compareUnsigned);
        for (String line : ChecksummedLines.read(file, FORMAT, MAX_ENTRIES, 64)) {
            try {
                out.add(Guids.parse(line));
            } catch (TopologyException e) {
                throw new StoreException(file + ": damaged: '" + line + "' is not a GUID");
            }
        }
        return out;
    }

    /** Atomically replaces the file with {@code guids}. */
    public void save(Set<Long> guids) {
        Set<Long> sorted = new TreeSet<>(Long::compareUnsigned);
        sorted.addAll(guids);
        List<String> lines = new ArrayList<>(sorted.size());
        for (long g : sorted) {
            lines.add(Guids.format(g));
        }
        ChecksummedLines.write(file, FORMAT, "switches admitted into the fabric: <switch GUID>", lines, files);
    }
}
