package org.fabricmanager.daemon.chaos;

/**
 * The oracle's verdict against the daemon in a {@link ChaosSimulation}: what is wrong, of which {@link Kind} (a shrunk
 * schedule must fail the same way), with the seed, the schedule and what happened in the message.
 */
public final class ChaosViolation extends RuntimeException {
    /** What kind of wrong: shrinking keeps a smaller schedule only when it fails with the same kind. */
    public enum Kind {
        /** A live switch holds tables other than those the daemon says it holds, while CONVERGED. */
        TABLES_DIFFER,
        /** A route through the tables held is no valid shortest up*&#47;down* route on the live fabric. */
        ROUTE_INVALID,
        /** A pure loss changed an entry whose route crossed nothing lost, or a refinement one no loss had moved. */
        CHURN_BEYOND_LOSS,
        /** With everything back, the tables are not the full routing of the intact fabric. */
        NOT_INTACT,
        /** The status says other than what is true at a quiet point (state, version, switches, tables, drains). */
        STATUS_WRONG,
        /** A daemon restarted on its state directory lost a drain, a quarantine or the routing in force. */
        STATE_LOST,
        /** The daemon never reached a quiet point (CONVERGED, nothing pending). */
        NO_QUIET_POINT,
        /** A quarantine lasted hours past the cable's last flap. */
        QUARANTINE_KEPT,
        /** An operator's request was refused that must not be, or never answered. */
        REQUEST_FAILED,
        /** A what-if, a refused drain or a reload changed the routing in force, the state, the status or a table. */
        ACTION_CHANGED,
        /** The daemon threw where it must not. */
        DAEMON_ERROR
    }

    private final Kind kind;

    ChaosViolation(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
