package org.fabricmanager.routing.baseline;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.PhaseTimings;

/** Records the wall-clock duration of consecutive named phases. */
final class PhaseClock {
    private final List<PhaseTimings.Phase> phases = new ArrayList<>();
    private long start = System.nanoTime();

    /** Ends the current phase under {@code name} and starts the next. */
    void lap(String name) {
        long now = System.nanoTime();
        phases.add(new PhaseTimings.Phase(name, now - start));
        start = now;
    }

    PhaseTimings timings() {
        return new PhaseTimings(phases);
    }
}
