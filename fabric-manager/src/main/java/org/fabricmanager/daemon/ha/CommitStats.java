package org.fabricmanager.daemon.ha;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this member's manager replicated: per state file, the writes committed, their bytes and the time
 * from submission to committed-and-applied here. Read by the meters at scrape time; written by the
 * stores' threads (one write at a time per file).
 */
final class CommitStats {
    /** Counters of one state file. */
    static final class PerFile {
        final AtomicLong commits = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong nanos = new AtomicLong();
    }

    private final Map<String, PerFile> files;

    CommitStats() {
        Map<String, PerFile> m = new TreeMap<>();
        for (String f : StateEntry.FILES) {
            m.put(f, new PerFile());
        }
        this.files = Collections.unmodifiableMap(m);
    }

    void record(String file, int bytes, long nanos) {
        PerFile p = files.get(file);
        if (p != null) {
            p.commits.incrementAndGet();
            p.bytes.addAndGet(bytes);
            p.nanos.addAndGet(nanos);
        }
    }

    /** Every replicated file's counters, by file name. */
    Map<String, PerFile> files() {
        return files;
    }
}
