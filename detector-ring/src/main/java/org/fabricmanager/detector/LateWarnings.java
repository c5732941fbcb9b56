package org.fabricmanager.detector;

/**
 * When a late heartbeat is worth a WARN: at most one per {@value #INTERVAL_MS} ms for all the members that share
 * it. A process that hosts one member gives it its own; a process that hosts many (a simulator of hundreds of
 * switches) shares one through {@link ProcessHealth}, because an overloaded host makes every member late at once
 * and a warning per member would be hundreds of lines saying the same thing. Thread-safe.
 */
final class LateWarnings {
    static final long INTERVAL_MS = 10_000;
    private static final long INTERVAL = INTERVAL_MS * 1_000_000L;

    private boolean warned;
    private long lastWarning;
    private long suppressed;

    /**
     * A late heartbeat at {@code now} (ns): returns how many were suppressed since the last warning when this
     * one is to be logged as a warning, or -1 when it is not (it is counted).
     */
    synchronized long admit(long now) {
        if (warned && now - lastWarning < INTERVAL) {
            suppressed++;
            return -1;
        }
        long before = suppressed;
        warned = true;
        lastWarning = now;
        suppressed = 0;
        return before;
    }
}
