package org.fabricmanager.daemon.api;

/** What the daemon is doing, as {@code GET /api/v1/status} reports it. */
public enum DaemonState {
    /** Switches are connecting; nothing has been routed yet. */
    DISCOVERING,
    /**
     * A fabric change is being routed (or waits out its settle window, lost sessions the judgement of their burst), or
     * its tables are installed and the fabric's check against the expected shape has not ended yet.
     */
    ROUTING,
    /** Tables are computed; some connected switches have not acknowledged them yet. */
    PUSHING,
    /** Every connected switch holds the current tables. */
    CONVERGED
}
