package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.analysis.DeadlockAnalyzer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.VirtualChannels;
import org.fabricmanager.routing.vtftr.VtftrEngine;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.HdftGenerator;
import org.fabricmanager.topology.HdftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code demo --hdft 'HDFT(4x4;2;1;1)'} runs, in one process so that the agents can be read directly:
 * after convergence, and after each of two power-killed leaves of one row, every agent holds exactly the LFT
 * and the VC rules of the vtftr engine on the daemon's live topology, and those tables' (link, VC) graph is
 * acyclic.
 */
class DaemonVtftrIT {
    static final HdftSpec SPEC = HdftSpec.parse("HDFT(4x4;2;1;1)");

    @TempDir
    Path state;

    @Test
    void everyAgentHoldsTheOfflineTablesAndRulesBeforeAndAfterLeafFailures() throws Exception {
        Fabric fabric = HdftGenerator.generate(SPEC);
        int n = fabric.switches().size();
        // a 1 s settle window: the killed leaf's session and its neighbours' reports make one re-route under load
        DaemonConfig base = SystemSupport.config(state, null).withEngine("vtftr").withExpectedHdft(SPEC);
        DaemonConfig.Faults f = base.faults();
        DaemonConfig config = new DaemonConfig(base.southbound(), base.rest(), base.fabric(), base.discovery(),
                new DaemonConfig.Routing("vtftr", 0, 1_000), base.push(), base.state(),
                new DaemonConfig.Faults(1_000, f.flapThreshold(), f.flapWindowMs(), f.quarantineMs(), f.detector()),
                base.security());
        FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of());
        try (FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            sim.start();
            Views.Status s = SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED
                    && st.switches().connected() == n, "first convergence");
            assertThat(s.routing().deadlockFree()).isTrue();
            assertAgentsHoldOfflineRouting(daemon, sim, s.routing().version());

            long[] dead = {HdftGenerator.leafGuid(SPEC, 0, 3), HdftGenerator.leafGuid(SPEC, 2, 3)};
            for (int k = 0; k < dead.length; k++) {
                long version = s.routing().version();
                long computations = daemon.computations().get();
                int alive = n - k - 1;
                sim.kill(dead[k], FabricSimulator.KillMode.POWER);
                s = SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED
                        && st.routing().version() > version && st.switches().connected() == alive,
                        "re-route around dead leaf " + (k + 1));
                assertThat(daemon.computations().get()).as("one re-route").isEqualTo(computations + 1);
                assertThat(s.routing().deadlockFree()).isTrue();
                assertAgentsHoldOfflineRouting(daemon, sim, s.routing().version());
            }
        } finally {
            daemon.close();
        }
    }

    private static void assertAgentsHoldOfflineRouting(FabricManagerDaemon daemon, FabricSimulator sim, long version)
            throws Exception {
        Fabric live = daemon.api().topology().get();
        ForwardingTables expected;
        try (RoutingEngine engine = new VtftrEngine(1)) {
            var result = engine.route(live.index());
            assertThat(result.validity().isValid()).as("every surviving leaf pair routed").isTrue();
            expected = result.tables();
        }
        SystemSupport.assertSwitchesHold(sim, expected, version);
        TableSet wire = new TableSet(version, expected);
        for (int s = 0; s < expected.switchCount(); s++) {
            SwitchAgent agent = sim.agent(expected.switchGuid(s));
            LftBatch.Rules rules = wire.rules(s);
            var held = agent.table().rules().orElseThrow(() -> new AssertionError(agent + " holds no VC rules"));
            assertThat(held.vcCount()).isEqualTo(rules.vcCount());
            assertThat(held.portClasses()).as("%s port classes", agent).isEqualTo(rules.portClasses());
            assertThat(held.transitions()).as("%s transitions", agent).isEqualTo(rules.transitions());
        }
        RoutedFabric routed = RoutedFabric.of(live.index(), expected);
        assertThat(new DeadlockAnalyzer(routed, VirtualChannels.of(expected), 1).analyze().deadlockFree())
                .as("(link, VC) graph of the live tables").isTrue();
    }
}
