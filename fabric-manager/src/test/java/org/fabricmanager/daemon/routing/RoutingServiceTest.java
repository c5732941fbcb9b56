package org.fabricmanager.daemon.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The base of a repairing service's repairs ({@code routing.onFault: repair}, repairs refined): a repair whose
 * refinement changes nothing is the base of the next repair as a refined one is, so a loss after it moves only the
 * entries that loss forces. Before, the base stayed the older routing, and the next repair gave the entries the first
 * loss had moved the closed form over the fewer candidates left, another port as close (the chaos campaign of issue
 * 68, seed 41: 10 entries moved where the loss forced 8).
 */
class RoutingServiceTest {
    private static final Fabric FABRIC = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"));

    private final RoutingService service = new RoutingService(new HomeDmodcEngine(1), true);

    @AfterEach
    void close() {
        service.close();
    }

    private RoutingOutcome route(RoutingJob job) throws Exception {
        return service.route(job).get(30, TimeUnit.SECONDS);
    }

    /** The next job after {@code in} (in force, for {@code inForceFabric}): for {@code fabric}, a refinement or not. */
    private RoutingOutcome next(RoutingOutcome in, Fabric inForceFabric, Fabric fabric, boolean refine)
            throws Exception {
        long version = in.tables().version() + 1;
        return route(new RoutingJob(version, fabric, in.tables(), in.fingerprint(), false, inForceFabric, refine));
    }

    @Test
    void aRepairWhoseRefinementChangesNothingIsTheBaseOfTheNextRepair() throws Exception {
        service.refineRepairs(true);
        RoutingOutcome intact = route(new RoutingJob(1, FABRIC, null, null));
        long drainedSpine = PgftGenerator.switchGuid(2, 2);
        Fabric drained = FABRIC.withoutLinks(FABRIC.links().stream()
                .filter(l -> l.a() == drainedSpine || l.b() == drainedSpine).toList());
        RoutingOutcome repair = next(intact, FABRIC, drained, false);
        assertThat(repair.repaired()).isTrue();
        assertThat(service.refinable(repair.tables())).as("a repair that waits for its refinement").isTrue();
        RoutingOutcome refinement = next(repair, drained, drained, true);
        assertThat(refinement.unchanged()).as("the refinement gives the repair's own ports").isTrue();
        assertThat(service.refinable(repair.tables())).isFalse();

        Fabric both = drained.withoutSwitches(List.of(PgftGenerator.switchGuid(2, 3)));
        RoutingOutcome second = next(repair, drained, both, false);
        assertThat(second.churn().changedEntries()).as("entries the second loss moved").isPositive()
                .isEqualTo(second.churn().minimumEntries());
        // the tables in force repaired for the second loss, every entry checked
        try (HomeDmodcEngine engine = new HomeDmodcEngine(1)) {
            ForwardingTables expected = engine.repairer().orElseThrow().repair(repair.tables().tables(), drained.index(), both.index())
                    .result().tables();
            assertThat(differences(second.tables().tables(), expected)).isEmpty();
        }
    }

    private static List<String> differences(ForwardingTables actual, ForwardingTables expected) {
        List<String> differ = new ArrayList<>();
        for (int s = 0; s < expected.switchCount(); s++) {
            for (int d = 0; d < expected.destinationCount(); d++) {
                if (actual.port(s, d) != expected.port(s, d)) {
                    differ.add(String.format("0x%x[%d] %d not %d", expected.switchGuid(s), d, actual.port(s, d),
                            expected.port(s, d)));
                }
            }
        }
        return differ;
    }
}
