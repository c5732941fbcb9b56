package org.fabricmanager.daemon.chaos;

import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.routing.RoutingEngine;

/**
 * A defect planted in a {@link ChaosSimulation} to show that its oracle catches it: the tests plant them (a routing
 * that is not up*&#47;down*, a switch that acknowledges a block it dropped); a campaign plants {@link #NONE}.
 */
public interface Sabotage {
    /** Nothing planted. */
    Sabotage NONE = new Sabotage() {
        @Override
        public String toString() {
            return "nothing";
        }
    };

    /** The engines the daemon routes with (a new one per call) in place of {@code real}, the configured one's. */
    default Supplier<RoutingEngine> engines(Supplier<RoutingEngine> real) {
        return real;
    }

    /** How the daemon's stores write their files, in place of {@code real}, the state directory's. */
    default StateFiles files(StateFiles real) {
        return real;
    }

    /**
     * Called once every switch is on ({@code on}, by GUID), before the first check: may make one misbehave, chosen
     * with {@code random}; says what it planted, or {@code null}.
     */
    default String switchesOn(Map<Long, SimulatedSwitch> on, Random random) {
        return null;
    }
}
