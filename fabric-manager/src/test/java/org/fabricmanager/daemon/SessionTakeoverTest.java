package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.daemon.DaemonSimulationTest.SPEC;
import static org.fabricmanager.daemon.DaemonSimulationTest.await;
import static org.fabricmanager.southbound.RawFrames.lastError;
import static org.fabricmanager.southbound.RawFrames.readFrame;
import static org.fabricmanager.southbound.RawFrames.readUntilClosed;
import static org.fabricmanager.southbound.RawFrames.send;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.nio.NioEventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.AgentDependencies;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.Southbound;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.SouthboundServer;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A HELLO for a GUID that has a session takes it over with a higher incarnation (a restarted agent)
 * or the same one (the same run reconnecting); a lower one is still refused as a duplicate. The idle timeout is set far beyond
 * the tests' length, so only a takeover can end an old session here.
 */
class SessionTakeoverTest {
    @TempDir
    Path state;
    FabricManagerDaemon daemon;
    FabricSimulator sim;
    AgentSettings settings;
    final Fabric fabric = PgftGenerator.generate(SPEC);
    final NioEventLoopGroup group = new NioEventLoopGroup(1);
    final List<SwitchAgent> extraAgents = new ArrayList<>();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    final ListAppender<ILoggingEvent> southboundLog = new ListAppender<>();
    final Logger southbound = (Logger) LoggerFactory.getLogger("org.fabricmanager.southbound");
    Level southboundLevel;

    @BeforeEach
    void start() throws Exception {
        southboundLevel = southbound.getLevel();
        southboundLog.start();
        southbound.addAppender(southboundLog);
        southbound.setLevel(Level.DEBUG);
        DaemonConfig c = DaemonSimulationTest.config(state, SPEC).withSouthboundBind("127.0.0.1");
        Southbound sb = c.southbound();
        c = new DaemonConfig(new Southbound(sb.bind(), sb.port(), sb.maxFrameBytes(), sb.handshakeTimeoutMs(),
                sb.echoIntervalMs(), 600_000, sb.ioThreads()), c.rest(), c.fabric(), c.discovery(), c.routing(), c.push(),
                c.state(), c.faults());
        daemon = FabricManagerDaemon.start(c, StartOptions.of(List.of()).registry(meters).engine(new HopTestEngine()));
        settings = new AgentSettings(new InetSocketAddress("127.0.0.1", daemon.southboundAddress().getPort()), 65536,
                1_000, 5_000, 20, 200);
        sim = new FabricSimulator(fabric, settings, null, 1, null, 3);
    }

    @AfterEach
    void stop() {
        for (SwitchAgent a : extraAgents) {
            a.stop().syncUninterruptibly();
        }
        sim.close();
        daemon.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        southbound.detachAppender(southboundLog);
        southbound.setLevel(southboundLevel);
    }

    @Test
    void aHigherOrEqualIncarnationTakesTheSessionOverALowerOneIsRefused() throws Exception {
        long guid = PgftGenerator.switchGuid(1, 2);
        long now = System.currentTimeMillis() * 1000;
        try (Socket stale = connect()) {
            send(stale, hello(guid, 100));
            assertThat(readFrame(stale)).isInstanceOf(Message.HelloReply.class);
            // the same run reconnecting (its old connection silently dead) takes the session over at once
            Socket first = connect();
            send(first, hello(guid, 100));
            assertThat(readFrame(first)).isInstanceOf(Message.HelloReply.class);
            ErrorReport replaced = lastError(readUntilClosed(stale));
            assertThat(replaced.errorCode()).contains(ErrorCode.SUPERSEDED);
            assertThat(replaced.message()).contains("same agent run");
            for (long incarnation : new long[] {99, 0}) {
                try (Socket s = connect()) {
                    send(s, hello(guid, incarnation));
                    ErrorReport e = lastError(readUntilClosed(s));
                    assertThat(e.errorCode()).as("incarnation %d", incarnation).contains(ErrorCode.DUPLICATE_GUID);
                    assertThat(e.txid()).isEqualTo(1);
                    assertThat(e.message()).contains("incarnation 100").contains("incarnation " + incarnation + " is lower");
                }
            }
            try (first; Socket second = connect()) {
                send(second, hello(guid, 101));
                assertThat(readFrame(second)).isInstanceOf(Message.HelloReply.class);
                ErrorReport superseded = lastError(readUntilClosed(first));
                assertThat(superseded.errorCode()).contains(ErrorCode.SUPERSEDED);
                assertThat(superseded.fatal()).isTrue();
                assertThat(superseded.txid()).as("answers no request").isZero();
                assertThat(superseded.message()).contains(Guids.format(guid)).contains("incarnation 101");

                // the superseded one coming back keeps being refused: the newer session stays
                try (Socket again = connect()) {
                    send(again, hello(guid, 100));
                    assertThat(lastError(readUntilClosed(again)).errorCode()).contains(ErrorCode.DUPLICATE_GUID);
                }
                // an incarnation no start time can reach (2^63, unsigned) cannot take the GUID: refused before the
                // controller hears of it, the session stays
                try (Socket fourth = connect()) {
                    send(fourth, hello(guid, Long.MIN_VALUE));
                    ErrorReport refused = lastError(readUntilClosed(fourth));
                    assertThat(refused.errorCode()).contains(ErrorCode.INCARNATION_OUT_OF_RANGE);
                    assertThat(refused.message()).contains("9223372036854775808").contains("clock");
                }
                // a restart now (its start time in microseconds, unsigned above 101) takes it over
                try (Socket third = connect()) {
                    send(third, hello(guid, now));
                    assertThat(readFrame(third)).isInstanceOf(Message.HelloReply.class);
                    assertThat(lastError(readUntilClosed(second)).errorCode()).contains(ErrorCode.SUPERSEDED);
                }
            }
        }
        List<String> restarts = new ArrayList<>();
        for (Milestone m : daemon.api().milestones(0).get(5, TimeUnit.SECONDS)) {
            if (m.kind() == Milestone.Kind.SWITCH_RESTARTED) {
                restarts.add(m.message());
            }
        }
        assertThat(restarts).containsExactly(
                "switch " + Guids.format(guid) + " (s1-2) restarted (incarnation 100 -> 101): took over its session",
                "switch " + Guids.format(guid) + " (s1-2) restarted (incarnation 101 -> " + now + "): took over "
                        + "its session");
        assertThat(daemon.api().milestones(0).get(5, TimeUnit.SECONDS)).filteredOn(m -> m.kind() == Milestone.Kind.SWITCH_RECONNECTED)
                .extracting(Milestone::message).containsExactly("switch " + Guids.format(guid) + " (s1-2) reconnected "
                        + "(incarnation 100) while its previous connection still looked open: took over its session");
    }

    @Test
    void repeatedDuplicateGuidRefusalsAreCountedNotWarnedEachTime() throws Exception {
        long guid = PgftGenerator.switchGuid(1, 3);
        try (Socket holder = connect()) {
            send(holder, hello(guid, 100));
            assertThat(readFrame(holder)).isInstanceOf(Message.HelloReply.class);
            for (int i = 0; i < 50; i++) {
                try (Socket s = connect()) {
                    send(s, hello(guid, 99));
                    assertThat(lastError(readUntilClosed(s)).errorCode()).contains(ErrorCode.DUPLICATE_GUID);
                }
            }
        }
        var refused = meters.find(org.fabricmanager.southbound.SouthboundRejections.METER)
                .tag("reason", "duplicate-guid").counter();
        Await.until("50 refusals counted", () -> refused != null && refused.count() == 50.0);
        List<String> warnings = new ArrayList<>();
        synchronized (southboundLog) {
            for (ILoggingEvent e : southboundLog.list) {
                if (e.getLevel() == Level.WARN && e.getFormattedMessage().contains("DUPLICATE_GUID")) {
                    warnings.add(e.getFormattedMessage());
                }
            }
        }
        assertThat(warnings).as("one rate-limited summary at most, not one line per refusal").hasSizeLessThanOrEqualTo(1);
    }

    @Test
    void restartedAgentTakesOverFromItsHungPredecessorAndGetsItsTable() throws Exception {
        sim.start();
        await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 8, "convergence");
        long leaf = PgftGenerator.switchGuid(1, 2);
        SwitchAgent old = sim.agent(leaf);
        sim.faults(leaf).freeze(); // its process froze: the connection stays open and silent
        old.stop().syncUninterruptibly();

        SwitchAgent restarted = agentFor(old, 11);
        restarted.continueAfter(old.incarnation());
        restarted.start();
        awaitIncarnation(leaf, restarted);
        Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 8
                && st.tables().inSync() == 8, "convergence with the restarted agent");
        assertThat(restarted.incarnation()).isGreaterThan(old.incarnation());
        assertThat(daemon.api().topology().get()).isEqualTo(fabric);
        ForwardingTables expected = new HopTestEngine().route(fabric.index()).tables();
        int row = fabric.index().switchId(leaf);
        assertThat(restarted.table().version()).isEqualTo(s.routing().version());
        assertThat(restarted.table().entries()).as("it started empty and got its whole table")
                .isEqualTo(expected.copyRow(row));

        // the old session's own close comes after the takeover: it must change nothing. Its close is reported to the
        // control loop right after the session logs it; the status call, queued after that report, sees its effect.
        Await.until("the superseded session's own close", () -> closesLogged().stream()
                .anyMatch(line -> line.contains("SUPERSEDED") && line.contains("superseded by its restarted agent")));
        s = daemon.api().status().get(5, TimeUnit.SECONDS);
        assertThat(s.state()).isEqualTo(DaemonState.CONVERGED);
        assertThat(s.switches().connected()).isEqualTo(8);
        assertThat(daemon.api().switchDetail(leaf).get().incarnation()).isEqualTo(restarted.incarnation());
        assertThat(restarted.handshakes()).isEqualTo(1);
        assertThat(old.handshakes()).isEqualTo(1);
        List<Milestone> milestones = daemon.api().milestones(0).get(5, TimeUnit.SECONDS);
        assertThat(milestones).filteredOn(m -> m.kind() == Milestone.Kind.SWITCH_RESTARTED).extracting(Milestone::message)
                .containsExactly("switch " + Guids.format(leaf) + " (s1-2) restarted (incarnation " + old.incarnation()
                        + " -> " + restarted.incarnation() + "): took over its session");
        assertThat(milestones).filteredOn(m -> m.kind() == Milestone.Kind.SWITCH_LOST).extracting(Milestone::message)
                .singleElement().asString().contains("superseded by its restarted agent");
    }

    @Test
    void twoLiveAgentsWithOneGuidSettleOnTheNewerOne() throws Exception {
        sim.start();
        await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 8, "convergence");
        long leaf = PgftGenerator.switchGuid(1, 1);
        SwitchAgent first = sim.agent(leaf);
        SwitchAgent twin = agentFor(first, 12); // a second device misconfigured with the same GUID
        twin.continueAfter(first.incarnation());
        twin.start();
        awaitIncarnation(leaf, twin);
        await(daemon, st -> st.state() == DaemonState.CONVERGED && st.tables().inSync() == 8, "convergence with the twin");
        // the superseded one reconnects (20-200 ms backoff) and is refused each time: let it try three more times
        double connections = connectionsAccepted();
        Await.until("the superseded agent to reconnect three more times", () -> connectionsAccepted() >= connections + 3);
        assertThat(first.state()).isNotEqualTo(SwitchAgent.State.ACTIVE);
        assertThat(first.handshakes()).as("never admitted again").isEqualTo(1);
        assertThat(twin.handshakes()).as("never disturbed").isEqualTo(1);
        assertThat(twin.state()).isEqualTo(SwitchAgent.State.ACTIVE);
        assertThat(daemon.api().switchDetail(leaf).get().incarnation()).isEqualTo(twin.incarnation());
        assertThat(daemon.api().milestones(0).get(5, TimeUnit.SECONDS))
                .filteredOn(m -> m.kind() == Milestone.Kind.SWITCH_RESTARTED).hasSize(1);
    }

    /** The southbound's DEBUG lines saying a session closed (its close is reported to the daemon just after). */
    private List<String> closesLogged() {
        synchronized (southboundLog) {
            return southboundLog.list.stream().map(ILoggingEvent::getFormattedMessage)
                    .filter(line -> line.contains("closed in state")).toList();
        }
    }

    private SwitchAgent agentFor(SwitchAgent like, long seed) {
        SwitchAgent a = new SwitchAgent(like.guid(), like.name(), like.portCount(), like.ports(), settings,
                new AgentDependencies(group.next(), null, new Random(seed)));
        extraAgents.add(a);
        return a;
    }

    private void awaitIncarnation(long guid, SwitchAgent agent) {
        Await.value(agent + " to hold the session", () -> daemon.api().switchDetail(guid).get(5, TimeUnit.SECONDS),
                d -> d != null && d.connected() && d.incarnation() == agent.incarnation());
    }

    /** TCP connections the daemon's southbound accepted so far. */
    private double connectionsAccepted() {
        return meters.get(SouthboundServer.CONNECTIONS_METER).counter().count();
    }

    private static Hello hello(long guid, long incarnation) {
        return new Hello(1, 3, 3, guid, incarnation, 8, 65_536, 0, 0, TableHash.EMPTY, "s1-2");
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", daemon.southboundAddress().getPort());
        s.setSoTimeout(10_000);
        return s;
    }
}
