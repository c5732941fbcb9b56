package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.daemon.DaemonSimulationTest.SPEC;
import static org.fabricmanager.daemon.DaemonSimulationTest.assertAgentsHold;
import static org.fabricmanager.daemon.DaemonSimulationTest.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Lost, late and refused pushes, and killed switches, with the simulator's fault injection. */
class FaultInjectionTest {
    @TempDir
    Path state;
    FabricManagerDaemon daemon;
    FabricSimulator sim;
    final Fabric fabric = PgftGenerator.generate(SPEC);
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    /** The southbound's DEBUG lines (an unmatched ACK is logged there). */
    final ListAppender<ILoggingEvent> southboundLog = new ListAppender<>();
    final Logger southbound = (Logger) LoggerFactory.getLogger("org.fabricmanager.southbound");
    Level southboundLevel;

    @BeforeEach
    void start() throws Exception {
        southboundLevel = southbound.getLevel();
        southboundLog.start();
        southbound.addAppender(southboundLog);
        southbound.setLevel(Level.DEBUG);
        DaemonConfig config = DaemonSimulationTest.config(state, SPEC).withPush(200, 2);
        daemon = FabricManagerDaemon.start(config, StartOptions.of(List.of()).registry(meters).engine(new HopTestEngine()));
        AgentSettings settings = DaemonSimulationTest.agentSettings(daemon);
        sim = new FabricSimulator(fabric, settings, null, 1, null, 3);
    }

    @AfterEach
    void stop() {
        daemon.close();
        sim.close();
        southbound.detachAppender(southboundLog);
        southbound.setLevel(southboundLevel);
    }

    /** The tables the test engine computes for {@code f}. */
    private static ForwardingTables tablesOf(Fabric f) {
        return new HopTestEngine().route(f.index()).tables();
    }

    /** The fabric without the link at {@code guid}'s port {@code port}. */
    private Fabric without(long guid, int port) {
        Link cut = fabric.links().stream().filter(l -> l.a() == guid && l.aPort() == port || l.b() == guid && l.bPort() == port)
                .findFirst().orElseThrow();
        return Degrader.degrade(fabric, new DegradationPlan(0, 0, 1, List.of(), List.of(cut)));
    }

    /**
     * A port of {@code leaf} whose link, once cut, changes the tables of {@code leaf} and of at least one
     * spine (a re-route leaves unchanged tables alone, and these tests need a switch that must take the
     * new ones).
     */
    private int uplinkThatMatters(long leaf) {
        ForwardingTables before = tablesOf(fabric);
        for (int port = fabric.switchByGuid(leaf).orElseThrow().ports(); port >= 1; port--) {
            int p = port;
            if (fabric.links().stream().noneMatch(l -> l.a() == leaf && l.aPort() == p && fabric.isSwitch(l.b())
                    || l.b() == leaf && l.bPort() == p && fabric.isSwitch(l.a()))) {
                continue;
            }
            ForwardingTables after = tablesOf(without(leaf, port));
            int row = after.switchCount();
            boolean leafChanged = false;
            boolean spineChanged = false;
            for (int s = 0; s < after.switchCount(); s++) {
                if (!after.rowEquals(s, before, s)) {
                    leafChanged |= after.switchGuid(s) == leaf;
                    spineChanged |= after.switchGuid(s) != leaf;
                }
            }
            if (leafChanged && spineChanged && row > 0) {
                return port;
            }
        }
        throw new AssertionError("no uplink of " + leaf + " moves tables");
    }

    /** A switch other than {@code leaf} whose table changes when the link at {@code leaf}'s {@code port} is cut. */
    private long changedBy(long leaf, int port) {
        ForwardingTables before = tablesOf(fabric);
        ForwardingTables after = tablesOf(without(leaf, port));
        for (int s = 0; s < after.switchCount(); s++) {
            if (after.switchGuid(s) != leaf && !after.rowEquals(s, before, s)) {
                return after.switchGuid(s);
            }
        }
        throw new AssertionError("nothing but the leaf changes");
    }

    @Test
    void lateAcksAreRetriedWithGrowingTimeoutsUntilTheSwitchIsInSync() throws Exception {
        sim.start();
        await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 8, "convergence");
        long leaf = PgftGenerator.switchGuid(1, 0);
        int port = uplinkThatMatters(leaf);
        SwitchAgent slow = sim.agent(changedBy(leaf, port));
        sim.faults(slow.guid()).delay(250); // both ways: an ACK comes ~500 ms after its commit, the first timeout is 200 ms
        sim.linkDown(leaf, port);
        Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() == 2,
                "convergence of v2");
        assertThat(s.push().retries()).isGreaterThanOrEqualTo(2);
        assertThat(s.push().totalRetries()).isEqualTo(s.push().retries());
        assertThat(s.tables().failing()).isZero();
        // the late ACKs of the re-sent commits still come after the convergence: wait until the daemon has read
        // them all (each matches no pending request any more), then nothing may have changed
        Views.SwitchDetail d = daemon.api().switchDetail(slow.guid()).get();
        String slowGuid = Guids.format(slow.guid());
        long lateAcks = d.pushRetries();
        Await.until("the " + lateAcks + " late ACKs of " + slowGuid + "'s re-sent commits", () -> {
            synchronized (southboundLog) {
                return southboundLog.list.stream().map(ILoggingEvent::getFormattedMessage).filter(line ->
                        line.contains(slowGuid) && line.contains("matches no pending request")).count() >= lateAcks;
            }
        });
        s = daemon.api().status().get();
        assertThat(s.routing().version()).as("a slow agent causes no re-route").isEqualTo(2);
        assertThat(s.state()).isEqualTo(DaemonState.CONVERGED);
        assertAgentsHold(sim, tablesOf(daemon.api().topology().get()), 2, tablesOf(fabric));
        d = daemon.api().switchDetail(slow.guid()).get();
        assertThat(d.pushRetries()).isGreaterThanOrEqualTo(2);
        assertThat(d.inSync()).isTrue();
        assertThat(slow.handshakes()).isEqualTo(1);
    }

    @Test
    void aSwitchThatNeverAcknowledgesIsReportedFailingAndCatchesUpWhenItRecovers() throws Exception {
        sim.start();
        await(daemon, st -> st.state() == DaemonState.CONVERGED, "convergence");
        long leaf = PgftGenerator.switchGuid(1, 0);
        int port = uplinkThatMatters(leaf);
        SwitchAgent deaf = sim.agent(changedBy(leaf, port));
        sim.faults(deaf.guid()).dropInbound(true); // it will never see the next commit
        sim.linkDown(leaf, port);
        Views.Status s = await(daemon, st -> st.routing().version() == 2 && st.tables().failing() == 1, "failing switch");
        assertThat(s.state()).isEqualTo(DaemonState.PUSHING);
        assertThat(s.tables().pending()).isEqualTo(1);
        assertThat(s.tables().inSync()).isEqualTo(7);
        Views.SwitchDetail d = daemon.api().switchDetail(deaf.guid()).get();
        assertThat(d.lastPushError()).contains("no ACK for the commit of v2");
        assertThat(d.inSync()).isFalse();
        sim.faults(deaf.guid()).clear();
        s = await(daemon, st -> st.state() == DaemonState.CONVERGED, "convergence after recovery");
        assertThat(s.routing().version()).isEqualTo(2);
        assertThat(deaf.handshakes()).as("its session was never closed").isEqualTo(1);
        assertAgentsHold(sim, tablesOf(daemon.api().topology().get()), 2, tablesOf(fabric));
    }

    @Test
    void aMuteAgentDoesNotHideWhatItsNeighboursReport() throws Exception {
        sim.start();
        await(daemon, st -> st.state() == DaemonState.CONVERGED, "convergence");
        SwitchAgent mute = sim.agent(PgftGenerator.switchGuid(1, 1));
        int port = uplinkThatMatters(mute.guid());
        sim.faults(mute.guid()).dropOutbound(true); // its PORT_STATUS and ACKs are lost
        sim.linkDown(mute.guid(), port);
        Views.Status s = await(daemon, st -> st.routing().version() == 2 && st.tables().inSync() == 7,
                "re-route on the other end's report");
        assertThat(daemon.api().topology().get().links()).hasSize(fabric.links().size() - 1);
        assertThat(s.state()).isEqualTo(DaemonState.PUSHING);
        sim.faults(mute.guid()).clear();
        s = await(daemon, st -> st.state() == DaemonState.CONVERGED, "convergence once it speaks again");
        assertThat(s.switches().connected()).isEqualTo(8);
    }

    @Test
    void poweredOffSwitchIsRoutedAroundAndGetsAFullTableWhenItComesBack() throws Exception {
        sim.start();
        await(daemon, st -> st.state() == DaemonState.CONVERGED, "convergence");
        long spine = PgftGenerator.switchGuid(2, 2);
        sim.kill(spine, FabricSimulator.KillMode.POWER);
        Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 7,
                "re-route without the spine");
        Fabric degraded = daemon.api().topology().get();
        assertThat(degraded.switchByGuid(spine)).isEmpty();
        assertThat(degraded.links()).hasSize(fabric.links().size() - 4);
        ForwardingTables around = tablesOf(degraded);
        ForwardingTables before = tablesOf(fabric);
        for (int r = 0; r < around.switchCount(); r++) {
            SwitchAgent a = sim.agent(around.switchGuid(r));
            assertThat(a.table().entries()).as("%s", a).isEqualTo(around.copyRow(r));
            int old = before.switchCount();
            for (int o = 0; o < before.switchCount(); o++) {
                old = before.switchGuid(o) == a.guid() ? o : old;
            }
            if (around.rowEquals(r, before, old)) {
                assertThat(a.table().version()).as("%s kept its unchanged table", a).isEqualTo(1);
            } else {
                assertThat(a.table().version()).as("%s", a).isEqualTo(s.routing().version());
            }
        }
        assertThat(sim.agent(spine).table().version()).as("a powered-off switch keeps nothing").isZero();
        sim.revive(spine);
        s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 8, "revived");
        assertThat(daemon.api().topology().get()).isEqualTo(fabric);
        assertAgentsHold(sim, tablesOf(fabric), s.routing().version(), tablesOf(degraded));
        Views.SwitchDetail d = daemon.api().switchDetail(spine).get();
        assertThat(d.incarnation()).isNotNull();
        assertThat(Guids.format(spine)).isEqualTo(d.guid());
    }

    @Test
    void aNodeThatGoesAwayKeepsItsIndexAndComesBackWithIt() throws Exception {
        sim.start();
        await(daemon, st -> st.state() == DaemonState.CONVERGED, "convergence");
        long leaf = PgftGenerator.switchGuid(1, 1);
        sim.linkDown(leaf, 2); // node n5 (index 5)
        Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.nodes() == 15, "node gone");
        assertThat(daemon.api().topology().get().nodeByGuid(PgftGenerator.nodeGuid(5))).isEmpty();
        assertThat(daemon.api().topology().get().index().destinationCount()).isEqualTo(16);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> daemon.api().route(0, 5).get())
                .hasMessageContaining("no node has index 5");
        assertThat(sim.agent(leaf).table().port(5)).as("nothing routes to the absent node").isEqualTo(255);
        // who the fault touched: the node by name and index, in the reaction, one event, the faults and the gauge
        List<Milestone> events = daemon.api().milestones(0).get();
        Milestone reaction = events.stream().filter(m -> m.kind() == Milestone.Kind.REACTION).reduce((a, b) -> b)
                .orElseThrow();
        assertThat(reaction.details()).containsEntry("nodesCutOff", 1);
        assertThat(reaction.message()).contains("1 end nodes cut off (n5)");
        assertThat(reaction.details().get("triggers").toString()).as("the trigger names the node, not only its port")
                .contains("port 2 down (node n5, index 5)");
        assertThat(events).filteredOn(m -> m.kind() == Milestone.Kind.NODE_UNREACHABLE).singleElement()
                .satisfies(m -> assertThat(m.message()).startsWith("1 end node no route reaches them: n5"));
        FaultReport faults = daemon.api().faults().get();
        assertThat(faults.nodesUnreachable()).isEqualTo(1);
        assertThat(faults.unreachableNodes()).containsExactly(new FaultReport.Node(Guids.format(PgftGenerator.nodeGuid(5)),
                "n5", 5));
        assertThat(faults.links()).filteredOn(l -> l.peerNode()).singleElement()
                .satisfies(l -> assertThat(l.peerName()).isEqualTo("n5"))
                .satisfies(l -> assertThat(l.peerIndex()).isEqualTo(5));
        Await.value("the unreachable-node gauge", () -> meters.get("fabric.nodes.unreachable").gauge().value(),
                v -> v == 1.0);
        sim.linkUp(leaf, 2);
        s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.nodes() == 16, "node back");
        assertThat(daemon.api().milestones(0).get()).filteredOn(m -> m.kind() == Milestone.Kind.NODE_REACHABLE).singleElement()
                .satisfies(m -> assertThat(m.message()).contains("n5").endsWith("(0 unreachable now)"));
        assertThat(daemon.api().faults().get().nodesUnreachable()).isZero();
        assertThat(daemon.api().topology().get().nodeByGuid(PgftGenerator.nodeGuid(5)).orElseThrow().index()).isEqualTo(5);
        assertThat(daemon.api().route(0, 5).get().outcome()).isEqualTo("DELIVERED");
        assertThat(s.routing().version()).isEqualTo(3);
    }
}
