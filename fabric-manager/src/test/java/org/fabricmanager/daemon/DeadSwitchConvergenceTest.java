package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.daemon.DaemonSimulationTest.SPEC;
import static org.fabricmanager.daemon.DaemonSimulationTest.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.nio.NioEventLoopGroup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fabricmanager.agent.AgentDependencies;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.ForwardingPlane;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.southbound.PortRecord;
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
 * A top switch dies as in netlab's {@code kill-switch}: every cable of it goes down while its agent still talks and
 * refuses every table ({@code APPLY_FAILED}: its bridge is gone), until its session ends. The daemon converges on the
 * tables that route around it as soon as the switches that carry traffic hold them, and the fault reaction is
 * recorded at that time; the dead switch stays pending and failing in the switches' views, with its error. When its
 * session then ends, the judgement of that loss (a keepalive window later) does not take the daemon out of
 * {@code CONVERGED}: no route depends on it. A daemon and a simulated fabric in one JVM, the dead switch's agent
 * built here with a forwarding plane that refuses on demand.
 */
class DeadSwitchConvergenceTest {
    /** The daemon's keepalive period: lost sessions within two of them are judged together. */
    static final int ECHO_MS = 3_000;

    @TempDir
    Path state;
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final Fabric fabric = PgftGenerator.generate(SPEC);
    final long dead = PgftGenerator.switchGuid(2, 0);
    final AtomicBoolean bridgeGone = new AtomicBoolean();
    FabricManagerDaemon daemon;
    FabricSimulator sim;
    NioEventLoopGroup deadLoop;
    SwitchAgent deadAgent;

    @BeforeEach
    void start() throws Exception {
        DaemonConfig base = DaemonSimulationTest.config(state, SPEC);
        DaemonConfig config = base.withSouthbound(base.southbound().withKeepalive(ECHO_MS, 30_000));
        daemon = FabricManagerDaemon.start(config, StartOptions.of(List.of()).registry(registry).engine(new HopTestEngine()));
        AgentSettings settings = DaemonSimulationTest.agentSettings(daemon);
        sim = new FabricSimulator(fabric, g -> settings, g -> g != dead, null, 1, null, 5);
        List<PortRecord> ports = new ArrayList<>();
        for (Link l : fabric.links()) {
            if (l.a() == dead) {
                ports.add(PortRecord.toSwitch(l.aPort(), l.b(), l.bPort(), ""));
            } else if (l.b() == dead) {
                ports.add(PortRecord.toSwitch(l.bPort(), l.a(), l.aPort(), ""));
            }
        }
        ForwardingPlane plane = (held, next) -> {
            if (bridgeGone.get()) {
                throw new ForwardingPlane.InstallException("bridge br0 in the dead switch's namespace: gone");
            }
        };
        deadLoop = new NioEventLoopGroup(1);
        deadAgent = new SwitchAgent(dead, "s2-0", fabric.switchByGuid(dead).orElseThrow().ports(), ports, settings,
                new AgentDependencies(deadLoop.next(), null, new Random(7), null, null, plane));
        sim.start();
        deadAgent.start();
        await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 8
                && st.tables().inSync() == 8, "convergence");
    }

    @AfterEach
    void stop() {
        daemon.close();
        sim.close();
        deadAgent.stop().awaitUninterruptibly(5, TimeUnit.SECONDS);
        deadLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aDeadSwitchThatRefusesItsTablesDoesNotHoldBackTheReactionThatRoutesAroundIt() throws Exception {
        long v0 = daemon.api().status().get().routing().version();
        long seq = lastSeq();
        long killed = System.nanoTime();
        bridgeGone.set(true);
        for (int p = 1; p <= deadAgent.portCount(); p++) {
            deadAgent.setPort(PortRecord.down(p));
            sim.linkDown(dead, p); // the other end loses carrier too
        }
        Views.Status converged = await(daemon, st -> st.state() == DaemonState.CONVERGED
                && st.routing().version() > v0 && st.switches().connected() == 8
                && daemon.api().topology().join().links().stream().noneMatch(l -> l.a() == dead || l.b() == dead),
                "convergence on tables that route around " + Guids.format(dead) + " while its session lasts");
        double elapsedMs = (System.nanoTime() - killed) / 1e6;

        assertThat(converged.tables().inSync()).as("every switch that carries traffic").isEqualTo(7);
        assertThat(converged.tables().pending()).as("the dead switch, still shown").isEqualTo(1);
        // its refusal comes back on its own session, which convergence does not wait for (a loaded host: after it)
        Views.SwitchDetail detail = Await.value("the dead switch's refusal", () -> daemon.api().switchDetail(dead).get(),
                d -> d.lastPushError() != null);
        assertThat(detail.inSync()).isFalse();
        assertThat(detail.lastPushError()).contains("APPLY_FAILED").contains("bridge br0");
        assertThat(detail.state()).isIn("PENDING", "FAILING");

        Milestone reaction = Await.value("the fault reaction's milestone", () -> since(seq, Milestone.Kind.REACTION),
                l -> !l.isEmpty()).get(0);
        double recordedMs = ((Number) reaction.details().get("faultToConvergedMs")).doubleValue();
        assertThat(((Number) reaction.details().get("tableVersion")).longValue()).as("the tables routing around it")
                .isEqualTo(converged.routing().version());
        assertThat(recordedMs).as("recorded at the convergence the test saw, %.1f ms after the cables went", elapsedMs)
                .isPositive().isLessThanOrEqualTo(elapsedMs);
        assertThat(registry.get(DaemonMetrics.FAULTS_CONVERGED).timer().count()).isEqualTo(1);
        assertThat(since(seq, Milestone.Kind.CONVERGED).get(0).message()).contains("on 7/8 switches")
                .contains("1 switch without a link in the routed fabric");

        // its agent gives up: the loss is judged a keepalive window later, and changes no route meanwhile
        long lostSeq = lastSeq();
        deadAgent.stop();
        Views.Status lost = await(daemon, st -> st.switches().connected() == 7, "the dead switch's session closed");
        boolean judged = !since(lostSeq, Milestone.Kind.SWITCH_LOST).isEmpty();
        assertThat(judged).as("the loss is still being judged (%d ms window)", 2 * ECHO_MS).isFalse();
        assertThat(lost.state()).as("a loss of a switch the routing routes around is no reason to re-route")
                .isEqualTo(DaemonState.CONVERGED);

        Await.value("the loss judged", () -> since(lostSeq, Milestone.Kind.SWITCH_LOST), l -> !l.isEmpty());
        Views.Status after = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.tables().pending() == 0,
                "convergence without the dead switch");
        assertThat(after.tables().inSync()).isEqualTo(7);
        assertThat(daemon.api().topology().get().switches()).hasSize(7);
    }

    private long lastSeq() throws Exception {
        List<Milestone> all = daemon.api().milestones(0).get();
        return all.isEmpty() ? 0 : all.get(all.size() - 1).seq();
    }

    private List<Milestone> since(long seq, Milestone.Kind kind) throws Exception {
        return daemon.api().milestones(seq).get().stream().filter(m -> m.kind() == kind).toList();
    }
}
