package org.fabricmanager.daemon.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.daemon.testing.HeldRefinementEngine;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A refinement that the fabric overtakes is given up ({@link RoutingManager#abandonRefinement}): it ends as
 * unchanged, the repair stays in force and refinable, and the next refinement of the same repair installs the refined
 * tables. The engine is {@code dmodc-home}, held at the start of its refinement until the test abandons it, so that
 * the abandonment reaches the engine's own loops (a small fabric's refinement would otherwise be over first).
 */
class RefinementAbandonTest {
    private static final Fabric INTACT = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)"));

    @TempDir
    Path state;

    private final ManualControlLoop loop = new ManualControlLoop();
    private final List<String> outcomes = new ArrayList<>();
    private final HeldRefinementEngine engine = new HeldRefinementEngine();
    private final RoutingService service = new RoutingService(engine, true);

    @AfterEach
    void close() {
        service.close();
    }

    @Test
    void anAbandonedRefinementLeavesTheRepairInForceAndRefinableAndTheNextOneRefinesIt() throws Exception {
        RoutingManager m = new RoutingManager(service, new RoutingStateStore(state), Runnable::run, loop,
                new MilestoneLog(), new SimpleMeterRegistry());
        m.listener(new RoutingManager.Listener() {
            @Override
            public void computed(ActiveRouting routing, double engineMs) {
                outcomes.add("computed v" + routing.version());
            }

            @Override
            public void failed(long version, Throwable cause) {
                outcomes.add("failed v" + version + ": " + cause);
            }

            @Override
            public void unchanged() {
                outcomes.add("unchanged");
            }

            @Override
            public void prepared() {
                outcomes.add("prepared");
            }
        });
        m.refinesRepairs(true);
        Fabric degraded = Degrader.degrade(INTACT, DegradationPlan.random(0.1, 0, 7));
        m.consider(degraded);
        loop.awaitAndRun(60);
        Fabric fault = Degrader.degrade(degraded, DegradationPlan.random(0.1, 0, 8));
        m.consider(fault);
        loop.awaitAndRun(60);
        ActiveRouting repair = m.active();
        assertThat(repair.repaired()).isTrue();
        assertThat(m.refinable()).as("a repair of dmodc-home's routing, which a refinement changes").isTrue();

        m.refineNext();
        m.consider(fault);
        assertThat(engine.held().await(60, TimeUnit.SECONDS)).as("the refinement started").isTrue();
        m.abandonRefinement();
        loop.awaitAndRun(60);
        assertThat(outcomes).containsExactly("computed v1", "computed v2", "unchanged");
        assertThat(engine.abandoned()).as("the engine's refinement ended by the abandonment").isTrue();
        assertThat(m.active()).isSameAs(repair);
        assertThat(m.refinable()).as("the repair still waits for its refinement").isTrue();

        engine.release();
        m.refineNext();
        m.consider(fault);
        loop.awaitAndRun(60);
        assertThat(outcomes).last().isEqualTo("computed v3");
        assertThat(m.refinable()).isFalse();
        try (HomeDmodcEngine fresh = new HomeDmodcEngine(1)) {
            TableRepairer r = fresh.repairer().orElseThrow();
            RoutedSnapshot base = fresh.routeSnapshot(degraded.index());
            RoutedSnapshot expected = r.refine(base.result().tables(), r.repair(base, fault.index())).orElseThrow();
            assertThat(m.active().tables().tables().sameAs(expected.result().tables())).isTrue();
        }
    }
}
