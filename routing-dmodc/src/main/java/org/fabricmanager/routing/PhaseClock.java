package org.fabricmanager.routing;

import java.util.ArrayList;
import java.util.List;

/**
 * Times the consecutive named phases of one routing computation, as an engine reports them in its
 * {@link PhaseTimings}: each phase lasts from the end of the one before (or the clock's start) to its {@link #lap}.
 */
public final class PhaseClock {
    private final List<PhaseTimings.Phase> phases = new ArrayList<>();
    private final long start = System.nanoTime();
    private long last = start;

    /** Ends the current phase under {@code name} and starts the next. */
    public void lap(String name) {
        long now = System.nanoTime();
        phases.add(new PhaseTimings.Phase(name, now - last));
        last = now;
    }

    /** Wall-clock time from the clock's start to the last lap, in nanoseconds. */
    public long elapsedNanos() {
        return last - start;
    }

    /** The phases lapped so far. */
    public PhaseTimings timings() {
        return new PhaseTimings(phases);
    }
}
