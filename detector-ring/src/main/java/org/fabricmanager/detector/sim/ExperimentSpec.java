package org.fabricmanager.detector.sim;

import java.util.Objects;

/**
 * One failure experiment: which ring, how many members fail at the same instant and where.
 *
 * @param ring        the simulated ring (size, η, δ, overlay, delays, seed)
 * @param failures    number of members that crash together
 * @param consecutive whether they are consecutive in the ring (the worst case) or drawn at random
 */
public record ExperimentSpec(SimulationConfig ring, int failures, boolean consecutive) {

    public ExperimentSpec {
        Objects.requireNonNull(ring, "ring");
        if (failures < 1 || failures >= ring.members()) {
            throw new IllegalArgumentException("failures must be in [1, " + (ring.members() - 1) + "], got " + failures);
        }
    }
}
