package org.fabricmanager.daemon.api;

/**
 * What the status page colours a switch by ({@code GET /api/v1/fabric/graph}). Declared from the least to
 * the most severe, so that a group of switches shows the worst of its members.
 */
public enum SwitchState {
    /** Connected, admitted, and holding the tables in force (acknowledged). */
    IN_SYNC,
    /** Connected and admitted; the tables in force are not acknowledged yet. */
    PENDING,
    /** Connected, waiting for an admin to admit it (admission control). */
    PENDING_ADMISSION,
    /** Connected and admitted, drained by an operator: routed around until undrained (its own tables still pushed). */
    DRAINED,
    /** Connected and admitted; its pushes failed more than {@code push.retries} times in a row (still retried). */
    FAILING,
    /** Known to the fabric but without an admitted session (lost, or dropped when the ring declared it dead). */
    DEAD;

    /** The more severe of the two. */
    public SwitchState worse(SwitchState other) {
        return other.ordinal() > ordinal() ? other : this;
    }

    /**
     * The state of a switch from what the daemon knows of it.
     *
     * @param ringDead          the ring failure detector declared it dead and it has not rejoined the ring (dead
     *                          unless it is admitted again: the daemon drops a dead switch's session)
     * @param pendingAdmission  it is connected and waits for admission
     * @param admitted          it is connected and admitted
     * @param inSync            it holds the tables in force
     * @param failing           its pushes keep failing
     */
    public static SwitchState of(boolean ringDead, boolean pendingAdmission, boolean admitted, boolean inSync,
                                 boolean failing) {
        // the daemon drops the session of a switch the ring declares dead: one admitted again has reconnected,
        // and the ring's list only forgets it once it rejoins the ring, so its own session and tables tell more
        if (pendingAdmission && !ringDead) {
            return PENDING_ADMISSION;
        }
        if (!admitted) {
            return DEAD;
        }
        if (failing) {
            return FAILING;
        }
        return inSync ? IN_SYNC : PENDING;
    }

    /** {@code state} of a switch an operator drained: {@link #DRAINED} unless it is worse off (failing, dead). */
    public static SwitchState drained(SwitchState state) {
        return state.worse(DRAINED);
    }
}
