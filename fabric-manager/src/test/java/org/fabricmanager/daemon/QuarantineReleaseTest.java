package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.daemon.DaemonSimulationTest.SPEC;
import static org.fabricmanager.daemon.DaemonSimulationTest.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quarantined (flapping) link is released once it stays up for the quarantine time, also when it comes back up
 * through its switch's reboot: the switch's new session reports it up in its PORT_INFO, and no PORT_STATUS ever
 * says "up" for it. A daemon and a simulated fabric in one JVM, with a short quarantine.
 */
class QuarantineReleaseTest {
    static final int THRESHOLD = 2;
    static final int QUARANTINE_MS = 300;
    static final int SWITCH_QUARANTINE_MS = 5_000;
    static final int ECHO_MS = 300;
    static final int IDLE_MS = 2_000;

    @TempDir
    Path state;
    FabricManagerDaemon daemon;
    FabricSimulator sim;
    final Fabric fabric = PgftGenerator.generate(SPEC);

    @BeforeEach
    void start() throws Exception {
        start(QUARANTINE_MS);
    }

    /** A new daemon and simulator whose flap quarantine lasts {@code quarantineMs}. */
    private void restart(int quarantineMs) throws Exception {
        stop();
        start(quarantineMs);
    }

    private void start(int quarantineMs) throws Exception {
        DaemonConfig base = DaemonSimulationTest.config(state, SPEC);
        DaemonConfig.Faults f = base.faults();
        // a silently dead agent is noticed at its session's idle deadline: short here, the default being 10 s
        DaemonConfig config = base.withFaults(new DaemonConfig.Faults(f.settleMs(), THRESHOLD, 60_000, quarantineMs,
                f.detector())).withSouthbound(base.southbound().withKeepalive(ECHO_MS, IDLE_MS));
        daemon = FabricManagerDaemon.start(config, StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(new HopTestEngine()));
        sim = new FabricSimulator(fabric, DaemonSimulationTest.agentSettings(daemon), null, 1, null, 3);
        sim.start();
        await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 8, "convergence");
    }

    @AfterEach
    void stop() {
        daemon.close();
        sim.close();
    }

    private List<Milestone> milestones(Milestone.Kind kind) throws Exception {
        return daemon.api().milestones(0).get().stream().filter(m -> m.kind() == kind).toList();
    }

    @Test
    void aSwitchWhoseSessionFlapsIsHeldOutOfTheFabricUntilItStaysConnected() throws Exception {
        restart(SWITCH_QUARANTINE_MS); // long enough that no reconnect below outlasts it
        long g = fabric.switches().get(0).guid();
        for (int i = 0; i <= THRESHOLD; i++) { // one lost session more than the threshold
            sim.kill(g, FabricSimulator.KillMode.AGENT); // its links stay up: only the session comes and goes
            int lost = i + 1;
            Await.value("session lost " + lost, () -> milestones(Milestone.Kind.SWITCH_LOST), l -> l.size() == lost);
            sim.revive(g);
            if (i < THRESHOLD) {
                await(daemon, st -> st.switches().connected() == 8, "switch back, round " + i);
            }
        }
        Await.value("the switch quarantined", () -> milestones(Milestone.Kind.SWITCH_QUARANTINED), l -> l.size() == 1);
        String address = Await.value("the switch held pending", () -> daemon.api().pendingSwitches().get(), l -> l.size() == 1)
                .get(0).address();
        long routed = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 7,
                "the fabric without it").routing().version();
        for (int i = 0; i < 3; i++) { // each reconnect while quarantined moves nothing
            sim.kill(g, FabricSimulator.KillMode.AGENT);
            sim.revive(g);
            String before = address;
            address = Await.value("held again from a new connection, round " + i, () -> daemon.api().pendingSwitches().get(),
                    l -> l.size() == 1 && !l.get(0).address().equals(before)).get(0).address();
        }
        Await.value("released once connected for the quarantine time",
                () -> milestones(Milestone.Kind.SWITCH_RELEASED), l -> l.size() == 1);
        Views.Status st = await(daemon, s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == 8,
                "the switch back in the fabric");
        assertThat(st.routing().version()).as("one re-route for its return, none per reconnect").isEqualTo(routed + 1);
        assertThat(daemon.api().pendingSwitches().get()).isEmpty();
    }

    private List<FaultReport.Quarantine> quarantined() throws Exception {
        return daemon.api().faults().get().quarantined();
    }

    @Test
    void aQuarantinedLinkBackUpThroughItsSwitchsRebootIsReleased() throws Exception {
        Link link = fabric.links().stream().filter(l -> fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())).findFirst()
                .orElseThrow();
        long g = link.a();
        int port = link.aPort();
        for (int i = 0; i < THRESHOLD; i++) {
            sim.linkDown(g, port);
            sim.linkUp(g, port);
        }
        sim.linkDown(g, port);
        String guid = Guids.format(g);
        Await.value("the link at " + guid + " port " + port + " quarantined and down", this::quarantined,
                q -> q.stream().anyMatch(e -> e.guid().equals(guid) && e.port() == port && e.stableUpSinceMillis() == null));

        sim.kill(g, FabricSimulator.KillMode.POWER);
        await(daemon, st -> st.switches().connected() == 7, "the switch gone");
        sim.linkUp(g, port);
        sim.revive(g);

        Await.value("every quarantine lifted (" + guid + " port " + port + " came back up in its PORT_INFO)",
                this::quarantined, List::isEmpty);
        await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 8
                && daemon.api().topology().join().links().size() == fabric.links().size(), "the link routed again");
        assertThat(daemon.api().topology().get().links()).hasSize(fabric.links().size());
    }
}
