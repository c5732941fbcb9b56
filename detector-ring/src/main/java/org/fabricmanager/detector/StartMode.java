package org.fabricmanager.detector;

/**
 * How a member enters the ring. A cold start of the whole ring uses {@link #BOOTSTRAP} on every
 * member; a member that starts while the ring is running (a repaired switch, a restarted agent)
 * uses {@link #JOIN} so that it learns the current dead set and its incarnation before observing.
 */
public enum StartMode {
    /** Assume every member is alive at incarnation 0 and start heartbeating at once. */
    BOOTSTRAP,
    /** Ask a running member for the current view first; start heartbeating once admitted. */
    JOIN
}
