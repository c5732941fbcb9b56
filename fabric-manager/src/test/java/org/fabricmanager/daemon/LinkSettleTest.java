package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.daemon.DaemonSimulationTest.SPEC;
import static org.fabricmanager.daemon.DaemonSimulationTest.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault settle window ends as soon as every changed link was reported by both its ends, and is waited in full
 * when one end stays silent. A daemon and a simulated fabric in one JVM, with a settle window (2 s) far longer than
 * anything else in a reaction, so that the reaction's {@code settledAfterMs} tells which case happened.
 */
class LinkSettleTest {
    static final int SETTLE_MS = 2_000;

    @TempDir
    Path state;
    FabricManagerDaemon daemon;
    FabricSimulator sim;
    final Fabric fabric = PgftGenerator.generate(SPEC);

    @BeforeEach
    void start() throws Exception {
        DaemonConfig base = DaemonSimulationTest.config(state, SPEC);
        DaemonConfig.Faults f = base.faults();
        DaemonConfig config = base.withFaults(new DaemonConfig.Faults(SETTLE_MS, f.flapThreshold(), f.flapWindowMs(),
                f.quarantineMs(), f.detector()));
        daemon = FabricManagerDaemon.start(config, StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(new HopTestEngine()));
        AgentSettings settings = DaemonSimulationTest.agentSettings(daemon);
        sim = new FabricSimulator(fabric, settings, null, 1, null, 3);
        sim.start();
        await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 8, "convergence");
    }

    @AfterEach
    void stop() {
        daemon.close();
        sim.close();
    }

    private Link switchLink() {
        return fabric.links().stream().filter(l -> fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())).findFirst()
                .orElseThrow();
    }

    private double settledAfterMs(long since) {
        Milestone reaction = Await.value("a reaction milestone after #" + since,
                () -> daemon.api().milestones(since).get().stream().filter(m -> m.kind() == Milestone.Kind.REACTION)
                        .findFirst().orElse(null), m -> m != null);
        return ((Number) reaction.details().get("settledAfterMs")).doubleValue();
    }

    private long lastSeq() throws Exception {
        List<Milestone> all = daemon.api().milestones(0).get();
        return all.isEmpty() ? 0 : all.get(all.size() - 1).seq();
    }

    @Test
    void aLinkReportedByBothEndsIsReroutedWithoutWaitingTheWholeWindow() throws Exception {
        Link link = switchLink();
        long since = lastSeq();
        sim.linkDown(link.a(), link.aPort());
        assertThat(settledAfterMs(since)).as("both ends reported: nothing more to wait for").isLessThan(SETTLE_MS / 2.0);
        await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() == 2, "the re-route");
        assertThat(daemon.api().topology().get().links()).hasSize(fabric.links().size() - 1);

        since = lastSeq();
        sim.linkUp(link.a(), link.aPort());
        assertThat(settledAfterMs(since)).as("and back up").isLessThan(SETTLE_MS / 2.0);
        await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() == 3, "the link back");
        assertThat(daemon.api().topology().get().links()).hasSize(fabric.links().size());
    }

    @Test
    void aLinkReportedByOneEndOnlyWaitsTheWholeWindow() throws Exception {
        Link link = switchLink();
        sim.faults(link.b()).dropOutbound(true); // its PORT_STATUS is lost (and its acknowledgements)
        long since = lastSeq();
        sim.linkDown(link.a(), link.aPort());
        await(daemon, st -> st.routing().version() == 2, "the re-route on one end's report");
        sim.faults(link.b()).clear(); // the push to it completes on the next retry: the reaction can close
        assertThat(settledAfterMs(since)).as("the other end may still report").isGreaterThanOrEqualTo(SETTLE_MS);
    }
}
