package org.fabricmanager.detector;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.detector.message.LinkStatus;

/**
 * The latest report of every (reporter, port) a member has heard of. A report replaces the stored one
 * only if its (reporter incarnation, sequence) is higher, so late or repeated copies change nothing.
 */
final class LinkTable {
    private static final Comparator<LinkStatus> ORDER =
            Comparator.comparingInt(LinkStatus::reporter).thenComparingInt(LinkStatus::port);

    private final Map<Long, LinkStatus> latest = new HashMap<>();
    private long digest;
    private List<LinkStatus> entryCache = List.of();
    private boolean entryCacheValid = true;

    /** Stores {@code status} if it is newer than what is known; true if it was. */
    boolean apply(LinkStatus status) {
        long key = key(status.reporter(), status.port());
        LinkStatus current = latest.get(key);
        if (current != null && !newer(status, current)) {
            return false;
        }
        if (current != null) {
            digest ^= hash(current);
        }
        digest ^= hash(status);
        latest.put(key, status);
        entryCacheValid = false;
        return true;
    }

    /** The latest report for a port, or null. */
    LinkStatus get(int reporter, int port) {
        return latest.get(key(reporter, port));
    }

    List<LinkStatus> entries() {
        if (!entryCacheValid) {
            List<LinkStatus> out = new ArrayList<>(latest.values());
            out.sort(ORDER);
            entryCache = List.copyOf(out);
            entryCacheValid = true;
        }
        return entryCache;
    }

    long digest() {
        return digest;
    }

    private static boolean newer(LinkStatus a, LinkStatus b) {
        if (a.reporterIncarnation() != b.reporterIncarnation()) {
            return a.reporterIncarnation() > b.reporterIncarnation();
        }
        return a.sequence() > b.sequence();
    }

    private static long key(int reporter, int port) {
        return (long) reporter << 32 | (port & 0xFFFFFFFFL);
    }

    private static long hash(LinkStatus s) {
        return Digests.link(s.reporter(), s.port(), s.reporterIncarnation(), s.sequence(), s.down());
    }
}
