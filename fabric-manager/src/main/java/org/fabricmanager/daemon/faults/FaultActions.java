package org.fabricmanager.daemon.faults;

import org.fabricmanager.daemon.registry.ManagedSwitch;

/**
 * What the fault manager may ask of the control loop, and nothing more: the narrow way back from the
 * fault reaction to the rest of the daemon, so that the control loop depends on the fault manager and
 * not the other way round.
 */
public interface FaultActions {

    /** The switch cannot be managed any more (its agent was declared dead): close its session as if it was lost. */
    void dropSession(ManagedSwitch ms, String reason);

    /** The fabric as routing sees it changed without a report: a quarantine was lifted (the mask changed). */
    void maskChanged();

    /** Something the daemon's state depends on changed (a switch rejoined the ring). */
    void stateMayHaveChanged();

    /**
     * The ring declared switch {@code guid} dead and its second opinion is being asked: compute, meanwhile, the routing
     * without it, so that a confirmation installs it at once. Nothing installed or pushed until then.
     */
    default void prepareWithout(long guid) {
    }

    /** The verdict on switch {@code guid} was refuted: the routing prepared without it is not wanted. */
    default void preparationRefuted(long guid) {
    }
}
