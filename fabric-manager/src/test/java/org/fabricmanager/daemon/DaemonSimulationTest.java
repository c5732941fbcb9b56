package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon and a small simulated fabric in one JVM, with a test engine: discovery, push, re-route, restart. */
class DaemonSimulationTest {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,4;1,1)");

    @TempDir
    Path state;

    static DaemonConfig config(Path state, PgftSpec expected) {
        // the simulated agents here run no failure-detector member
        return DaemonConfig.defaults().withDetector(false).withPorts(0, 0).withStateDirectory(state).withExpectedPgft(expected)
                .withDiscovery(300, 10_000).withPush(2_000, 3);
    }

    /** Agents of daemon {@code d} on loopback that give up quickly and reconnect within 20-200 ms (tests' pace). */
    static AgentSettings agentSettings(FabricManagerDaemon d) {
        return new AgentSettings(new InetSocketAddress("127.0.0.1", d.southboundAddress().getPort()), 65536, 1_000, 5_000,
                20, 200);
    }

    /** The first status of daemon {@code d} that is {@code done} (within {@link Await#DEFAULT}). */
    static Views.Status await(FabricManagerDaemon d, Predicate<Views.Status> done, String what) {
        return Await.value(what, () -> d.api().status().get(5, TimeUnit.SECONDS), done);
    }

    static void assertAgentsHold(FabricSimulator sim, ForwardingTables expected, long version) {
        assertAgentsHold(sim, expected, version, null);
    }

    /**
     * Every agent holds its row of {@code expected}: under {@code version} when its row differs from
     * {@code previous} (or there is none), and under its earlier version when the re-route left its row
     * unchanged (it got no round trip).
     */
    static void assertAgentsHold(FabricSimulator sim, ForwardingTables expected, long version, ForwardingTables previous) {
        for (int s = 0; s < expected.switchCount(); s++) {
            SwitchAgent agent = sim.agent(expected.switchGuid(s));
            assertThat(agent.table().entries()).as("%s table", agent).isEqualTo(expected.copyRow(s));
            int old = previous == null ? -1 : rowOf(previous, expected.switchGuid(s));
            if (old >= 0 && expected.rowEquals(s, previous, old)) {
                assertThat(agent.table().version()).as("%s version (row unchanged)", agent).isLessThan(version);
            } else {
                assertThat(agent.table().version()).as("%s version", agent).isEqualTo(version);
            }
        }
    }

    /** The row of switch {@code guid} in {@code t}, or -1. */
    static int rowOf(ForwardingTables t, long guid) {
        for (int s = 0; s < t.switchCount(); s++) {
            if (t.switchGuid(s) == guid) {
                return s;
            }
        }
        return -1;
    }

    static int changedRows(ForwardingTables a, ForwardingTables b) {
        int n = 0;
        for (int s = 0; s < a.switchCount(); s++) {
            n += a.rowEquals(s, b, s) ? 0 : 1;
        }
        return n;
    }

    @Test
    void discoversRoutesPushesReroutesAndRestartsWithoutRepushing() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        HopTestEngine engine = new HopTestEngine();
        FabricManagerDaemon daemon = FabricManagerDaemon.start(config(state, SPEC), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(engine));
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", daemon.southboundAddress().getPort());
        AgentSettings settings = new AgentSettings(address, 65536, 1_000, 5_000, 20, 300);
        try (FabricSimulator sim = new FabricSimulator(fabric, settings, null, 1, null, 1)) {
            sim.start();
            Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED, "first convergence");
            assertThat(s.switches().connected()).isEqualTo(8);
            assertThat(s.switches().expected()).isEqualTo(8);
            assertThat(s.nodes()).isEqualTo(16);
            assertThat(s.routing().version()).isEqualTo(1);
            assertThat(s.discovery().verdict()).isEqualTo("INTACT");
            assertThat(s.tables().inSync()).isEqualTo(8);
            Fabric topology = daemon.api().topology().get();
            for (EndNode n : topology.nodes()) {
                assertThat(n.index()).isEqualTo(fabric.nodeByGuid(n.guid()).orElseThrow().index());
            }
            ForwardingTables v1 = new HopTestEngine().route(topology.index()).tables();
            assertAgentsHold(sim, v1, 1);
            long fullBlocks = s.push().blocks();
            assertThat(fullBlocks).isPositive();

            // a leaf-to-spine link goes down: re-route, push only what changed
            sim.linkDown(PgftGenerator.switchGuid(1, 0), 5);
            s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() == 2, "re-route");
            Fabric degraded = daemon.api().topology().get();
            assertThat(degraded.links()).hasSize(fabric.links().size() - 1);
            ForwardingTables v2 = new HopTestEngine().route(degraded.index()).tables();
            assertAgentsHold(sim, v2, 2, v1);
            assertThat(s.push().blocks()).isLessThan(fullBlocks);
            assertThat(changedRows(v1, v2)).as("the fault moves some tables, not all").isBetween(1, 7);
            assertThat(s.push().commits()).as("a commit only where a table changed").isEqualTo(changedRows(v1, v2));
            assertThat(s.tables().inSync()).isEqualTo(8);

            sim.linkUp(PgftGenerator.switchGuid(1, 0), 5);
            s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() == 3, "link back up");
            assertAgentsHold(sim, v1, 3, v2);
            assertThat(engine.calls).isEqualTo(3);

            // restart: same fabric, same indices, nothing computed, nothing pushed
            daemon.close();
            daemon = FabricManagerDaemon.start(config(state, SPEC).withPorts(address.getPort(), 0), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(engine));
            s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 8, "restart");
            assertThat(s.routing().version()).isEqualTo(3);
            assertThat(s.routing().reusedFromState()).isTrue();
            assertThat(s.routing().computations()).isZero();
            assertThat(s.push().totalBlocks()).isZero();
            assertThat(s.push().totalBytes()).isZero();
            assertThat(engine.calls).isEqualTo(3);
            for (SwitchAgent a : sim.agents()) {
                assertThat(a.handshakes()).isEqualTo(2);
            }
            assertThat(daemon.api().topology().get()).isEqualTo(topology);
        } finally {
            daemon.close();
        }
    }

    @Test
    void oneBatchOnTheWireAtATimeStillConvergesWithTheSameBlocks() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricManagerDaemon daemon = FabricManagerDaemon.start(config(state, SPEC).withMaxInFlight(1), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(new HopTestEngine()));
        AgentSettings settings = new AgentSettings(new InetSocketAddress("127.0.0.1", daemon.southboundAddress().getPort()),
                65536, 1_000, 5_000, 20, 300);
        try (FabricSimulator sim = new FabricSimulator(fabric, settings, null, 1, null, 1)) {
            sim.start();
            Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED, "convergence");
            assertThat(s.push().commits()).isEqualTo(8);
            assertThat(s.push().blocks()).isEqualTo(8);
            assertAgentsHold(sim, new HopTestEngine().route(daemon.api().topology().get().index()).tables(), 1);
            ForwardingTables v1 = new HopTestEngine().route(daemon.api().topology().get().index()).tables();
            sim.linkDown(PgftGenerator.switchGuid(1, 2), 6);
            s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() == 2, "re-route");
            assertAgentsHold(sim, new HopTestEngine().route(daemon.api().topology().get().index()).tables(), 2, v1);
        } finally {
            daemon.close();
        }
    }

    /**
     * Agents that stage LFT_BLOCKS runs and agents that predate them, in one fabric, end with the same tables; the
     * runs cost one frame per four blocks here (tables of 256 entries) and the daemon counts the bytes each was sent.
     */
    @Test
    void agentsWithAndWithoutLftRunsInstallTheSameTables() throws Exception {
        PgftSpec spec = PgftSpec.parse("PGFT(2;16,16;1,16;1,1)");
        Fabric fabric = PgftGenerator.generate(spec);
        FabricManagerDaemon daemon = FabricManagerDaemon.start(config(state, spec), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(new HopTestEngine()));
        AgentSettings runs = new AgentSettings(new InetSocketAddress("127.0.0.1", daemon.southboundAddress().getPort()),
                65536, 1_000, 5_000, 20, 300);
        AgentSettings single = runs.withoutLftRuns();
        java.util.function.LongPredicate old = guid -> (Long.hashCode(guid) & 1) == 0;
        try (FabricSimulator sim = new FabricSimulator(fabric, guid -> old.test(guid) ? single : runs, null, 1, null, 1)) {
            sim.start();
            Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED, "convergence");
            ForwardingTables tables = new HopTestEngine().route(daemon.api().topology().get().index()).tables();
            assertAgentsHold(sim, tables, 1);
            int blocksPerTable = tables.destinationCount() / 64;
            long expectedBytes = 0;
            int olds = 0;
            for (SwitchAgent a : sim.agents()) {
                assertThat(a.blocksReceived()).as("%s blocks", a).isEqualTo(blocksPerTable);
                boolean isOld = old.test(a.guid());
                olds += isOld ? 1 : 0;
                expectedBytes += LftBatch.COMMIT_FRAME_BYTES + (isOld ? blocksPerTable * LftBatch.blockFrameBytes(64)
                        : LftBatch.runFrameBytes(tables.destinationCount()));
            }
            assertThat(olds).isBetween(1, sim.agents().size() - 1);
            assertThat(blocksPerTable).isEqualTo(4);
            assertThat(s.push().blocks()).isEqualTo((long) blocksPerTable * sim.agents().size());
            assertThat(s.push().bytes()).isEqualTo(expectedBytes);
        } finally {
            daemon.close();
        }
    }
}
