package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.cli.Main;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LftText;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.PgftSpec;
import org.slf4j.LoggerFactory;

/** Shared steps of the system tests. */
final class SystemSupport {
    private SystemSupport() {
    }

    /** A daemon configuration for tests: free ports, loopback, the given state directory and expectation. */
    static DaemonConfig config(Path state, PgftSpec expected) {
        return DaemonConfig.defaults().withDetector(false).withSouthboundBind("127.0.0.1").withPorts(0, 0).withStateDirectory(state)
                .withExpectedPgft(expected).withDiscovery(500, 30_000).withPush(3_000, 3);
    }

    /** A simulator of {@code fabric} connected to {@code daemon}, with quick reconnection. */
    static FabricSimulator simulator(Fabric fabric, int southboundPort) {
        AgentSettings settings = new AgentSettings(new InetSocketAddress("127.0.0.1", southboundPort), 65_536, 2_000,
                10_000, 50, 500);
        return new FabricSimulator(fabric, settings, null, 2, null, 7);
    }

    /** A condition polled by {@link #awaitTrue}. */
    interface Check {
        boolean holds() throws Exception;
    }

    /** Polls {@code check} until it holds (an exception counts as not yet); fails naming {@code what} after {@code seconds}. */
    static void awaitTrue(Check check, String what, int seconds) {
        Await.value(what, Duration.ofSeconds(seconds), check::holds, Boolean::booleanValue);
    }

    /** A UDP port free on loopback right now (for detector members). */
    static int freeUdpPort() throws Exception {
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Polls the daemon's status until {@code done} holds (60 s at most). */
    static Views.Status await(FabricManagerDaemon d, Predicate<Views.Status> done, String what) {
        return Await.value(what, Duration.ofSeconds(60), () -> d.api().status().get(10, TimeUnit.SECONDS), done);
    }

    /**
     * Runs the {@code route} command of the CLI on {@code fabric} (written as fabric-topology/1) and
     * reads back its lft-text/1 output.
     */
    static ForwardingTables routeCommand(Fabric fabric, Path dir, String name) {
        return routeCommand(fabric, dir, name, null);
    }

    /**
     * The same with {@code route --previous PREVIOUS} when {@code previous} is not null: the tables a daemon with
     * {@code routing.onFault: repair} (the default) holds after a change, {@code previous} being those of its last
     * full routing ({@code NAME.lft} of an earlier call).
     */
    static ForwardingTables routeCommand(Fabric fabric, Path dir, String name, Path previous) {
        Path topology = dir.resolve(name + ".json");
        Path lft = dir.resolve(name + ".lft");
        FabricJson.write(fabric, topology);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("route", "--topology", topology.toString(),
                "--lft-out", lft.toString()));
        if (previous != null) {
            args.addAll(List.of("--previous", previous.toString()));
        }
        int code = new Main(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args.toArray(new String[0]));
        assertThat(code).as("route: %s", err.toString(StandardCharsets.UTF_8)).isZero();
        return LftText.read(lft);
    }

    /**
     * Asserts that every agent holds exactly its row of {@code expected}, under {@code version} or, when a
     * later version left its row unchanged (no round trip for an unchanged table), an earlier one.
     */
    static void assertAgentsHold(FabricSimulator sim, ForwardingTables expected, long version) {
        assertThat(sim.agents()).hasSize(expected.switchCount());
        assertSwitchesHold(sim, expected, version);
    }

    /** As {@link #assertAgentsHold}, for the switches {@code expected} covers (others may be dead). */
    static void assertSwitchesHold(FabricSimulator sim, ForwardingTables expected, long version) {
        for (int s = 0; s < expected.switchCount(); s++) {
            SwitchAgent agent = sim.agent(expected.switchGuid(s));
            assertThat(agent.table().entries()).as("%s table", agent).isEqualTo(expected.copyRow(s));
            assertThat(agent.table().version()).as("%s table version", agent).isBetween(1L, version);
            assertThat(agent.table().hash()).as("%s table hash", agent).isEqualTo(TableHash.of(expected.copyRow(s)));
        }
    }

    /** Captures log events of the whole JVM until closed. */
    static final class LogCapture implements AutoCloseable {
        private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
        private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

        LogCapture() {
            appender.start();
            root.addAppender(appender);
        }

        /** Formatted messages logged so far. */
        List<String> messages() {
            List<String> out = new ArrayList<>();
            synchronized (appender.list) {
                for (ILoggingEvent e : new ArrayList<>(appender.list)) {
                    out.add(e.getLevel() + " " + e.getFormattedMessage());
                }
            }
            return out;
        }

        /** The events logged so far, oldest first. */
        List<ILoggingEvent> events() {
            synchronized (appender.list) {
                return new ArrayList<>(appender.list);
            }
        }

        void clear() {
            synchronized (appender.list) {
                appender.list.clear();
            }
        }

        @Override
        public void close() {
            root.detachAppender(appender);
        }
    }
}
