package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.daemon.DaemonSimulationTest.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.testing.HeldRefinementEngine;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fault that comes while the daemon refines the last one's repair does not wait for the refinement (a full routing:
 * 0.8 s at 65,536 nodes): the refinement is given up, the new fault is repaired, and once that converged and stayed
 * for the wait it is refined in turn. The engine holds its refinement until it is abandoned: without the abandonment
 * the second fault would wait the engine's minute out.
 */
class RefinementOvertakenTest {
    private static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)");

    @TempDir
    Path state;

    @Test
    void aFaultDuringARefinementAbandonsItIsRepairedAndIsRefinedAfterItsOwnConvergence() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        List<Link> cables = fabric.links().stream().filter(l -> fabric.isSwitch(l.a()) && fabric.isSwitch(l.b()))
                .toList();
        HeldRefinementEngine engine = new HeldRefinementEngine();
        FabricManagerDaemon daemon = FabricManagerDaemon.start(DaemonSimulationTest.config(state, SPEC)
                .withEngine(HomeDmodcEngine.NAME).withRefineAfter("100ms"), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(engine));
        try (FabricSimulator sim = new FabricSimulator(fabric, DaemonSimulationTest.agentSettings(daemon), null, 1,
                null, 1);
             HomeDmodcEngine home = new HomeDmodcEngine(1)) {
            sim.start();
            int all = fabric.switches().size();
            long v1 = converged(daemon, 0, all, "first convergence");
            Link first = cables.get(3);
            sim.linkDown(first.a(), first.aPort());
            assertThat(engine.held().await(60, TimeUnit.SECONDS)).as("the first fault's refinement started").isTrue();
            long repaired = daemon.api().status().get(5, TimeUnit.SECONDS).routing().version();
            assertThat(repaired).isGreaterThan(v1);

            engine.release();
            Link second = cables.get(cables.size() - 5);
            sim.linkDown(second.a(), second.aPort());
            long v = converged(daemon, repaired, all, "the second fault repaired and refined");
            assertThat(engine.abandoned()).as("the first refinement was given up in the engine").isTrue();

            Fabric now = daemon.api().topology().get();
            assertThat(now.links()).doesNotContain(first, second);
            TableRepairer r = home.repairer().orElseThrow();
            RoutedSnapshot full = home.routeSnapshot(fabric.index());
            RoutedSnapshot both = r.repair(full, now.index());
            ForwardingTables expected = r.refine(full.result().tables(), both).orElseThrow().result().tables();
            assertThat(ReturnsTest.held(sim, now).sameAs(expected))
                    .as("v%d: both faults' repair of the intact routing, refined", v).isTrue();
        } finally {
            daemon.close();
        }
    }

    /** The version of the first routing after {@code after} that every switch holds, refined. */
    private static long converged(FabricManagerDaemon daemon, long after, int switches, String what) {
        return await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() > after
                && !st.routing().refinePending() && st.switches().connected() == switches
                && st.tables().inSync() == switches, what).routing().version();
    }
}
