package org.fabricmanager.agent;

/**
 * Where an agent's committed table is applied: the switch's forwarding hardware. A {@link SwitchAgent} checks
 * a commit (blocks, length, hashes, term) and then hands the new table to its plane; only once the plane
 * returns does the agent hold the table and acknowledge the commit. A simulated switch has no hardware: its
 * table is the agent's {@link AppliedTable} itself ({@link #SIMULATED}); a Linux switch programs its bridge's
 * forwarding database (the {@code org.fabricmanager.agent.linux} package).
 *
 * <p>Called on the agent's event loop, one commit at a time, so a plane needs no locks; a plane that blocks
 * (a kernel round trip) holds up only the agents that share its loop.
 */
@FunctionalInterface
public interface ForwardingPlane {
    /** A simulated switch: the agent's table is the switch's table, there is nothing else to program. */
    ForwardingPlane SIMULATED = (held, next) -> {
    };

    /**
     * Programs {@code next} in place of {@code held}, returning only when the hardware holds {@code next}.
     *
     * @param held the table the agent holds and last acknowledged (what the hardware held after the last install
     *             that succeeded)
     * @param next the checked table of the commit
     * @throws InstallException when the hardware does not hold {@code next}: the agent keeps {@code held}, refuses the
     *                          commit with {@code ERROR APPLY_FAILED} and the daemon retries with a full push. The
     *                          hardware may then hold part of {@code next}; the plane must not trust {@code held} as
     *                          its state at the next install
     */
    void install(AppliedTable held, AppliedTable next) throws InstallException;

    /**
     * Where the hardware's port counters are read, or {@code null} when this plane has none of its own: the
     * {@link #SIMULATED} plane's agent then counts for itself ({@link SimulatedCounters}); any other plane without
     * counters makes an agent that does not announce them.
     */
    default PortCounterSource counters() {
        return null;
    }

    /** The hardware did not take a table; the message says what failed (names the switch and the command). */
    final class InstallException extends Exception {
        private static final long serialVersionUID = 1L;

        public InstallException(String message) {
            super(message);
        }

        public InstallException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
