package org.fabricmanager.routing;

/**
 * The expected fabric shapes an engine is made for, as the daemon's configuration names them
 * ({@code fabric.expectedPgft}, {@code fabric.expectedHdft}): the daemon asks the engine
 * ({@link RoutingEngine#shapes()}) and refuses it, before anything starts, for an expected shape it is not made for.
 */
public enum FabricShapes {
    /** PGFTs and other fat trees routed up and down; not 2-D fat trees, which its tables do not route safely. */
    PGFT,
    /** 2-D fat trees only; the engine refuses anything else. */
    HDFT,
    /** No shape of its own: any fabric (the baselines; {@code quality} judges their tables). */
    ANY;

    /** Whether a fabric expected to be a PGFT ({@code fabric.expectedPgft}) is among these shapes. */
    public boolean pgft() {
        return this != HDFT;
    }

    /** Whether a fabric expected to be a 2-D fat tree ({@code fabric.expectedHdft}) is among these shapes. */
    public boolean hdft() {
        return this != PGFT;
    }
}
