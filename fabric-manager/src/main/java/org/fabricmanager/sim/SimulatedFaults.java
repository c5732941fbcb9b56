package org.fabricmanager.sim;

/**
 * The faults the demo's {@code /api/v1/sim} endpoints inject ({@link SimEndpoints}): a switch killed or revived, a cable
 * taken down or up, a port's counters made to rise with errors. Two fabrics take them: {@link FabricSimulator} (agents in this JVM) and {@link IbsimFaults} (ibsim's
 * console, under OpenSM). An unknown switch or cable fails with {@link IllegalArgumentException} (404), an action the
 * fabric's state does not allow with {@link IllegalStateException} (409), an action without meaning on that fabric with
 * {@link UnsupportedOperationException} (400).
 */
public interface SimulatedFaults {
    /** Fails with {@link IllegalArgumentException} unless {@code guid} is a switch this fabric simulates. */
    void requireSwitch(long guid);

    /** Kills switch {@code guid} (see {@link FabricSimulator.KillMode}). */
    void kill(long guid, FabricSimulator.KillMode mode);

    /** Brings switch {@code guid} back. */
    void revive(long guid);

    /** Takes the cable at port {@code port} of switch {@code guid} down (both ends see it). */
    void linkDown(long guid, int port);

    /** Brings the cable at port {@code port} of switch {@code guid} back up. */
    void linkUp(long guid, int port);

    /** Makes port {@code port} of switch {@code guid} count {@code perSecond} received errors a second (0: stop). */
    void linkErrors(long guid, int port, long perSecond);
}
