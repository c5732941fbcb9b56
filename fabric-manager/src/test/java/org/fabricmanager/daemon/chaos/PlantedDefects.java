package org.fabricmanager.daemon.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.fabricmanager.daemon.HopTestEngine;
import org.fabricmanager.routing.RoutingEngine;

/** Defects planted in chaos simulations to show the oracle catches each. */
public final class PlantedDefects {
    private PlantedDefects() {
    }

    /** One switch drops one block of its first table and acknowledges it as applied. */
    public static final Sabotage SWITCH_SKIPS_A_BLOCK = new Sabotage() {
        @Override
        public String switchesOn(Map<Long, SimulatedSwitch> on, Random random) {
            List<Long> guids = new ArrayList<>(on.keySet());
            SimulatedSwitch victim = on.get(guids.get(random.nextInt(guids.size())));
            victim.skipOneBlock();
            return victim.name() + " drops one block of its next table and acknowledges it";
        }

        @Override
        public String toString() {
            return "a switch that skips a block";
        }
    };

    /**
     * The routing is plain shortest paths ({@link HopTestEngine}): on a degraded fabric with no path going up then down
     * only left between two leaves it routes them down and up again, which the daemon's engines never do.
     */
    public static final Sabotage ROUTES_NOT_UP_DOWN = new Sabotage() {
        @Override
        public Supplier<RoutingEngine> engines(Supplier<RoutingEngine> real) {
            return HopTestEngine::new;
        }

        @Override
        public String toString() {
            return "routes not up*/down*";
        }
    };
}
