package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.daemon.config.SouthboundSecurity;
import org.fabricmanager.daemon.opensm.OpenSmWire;
import org.fabricmanager.daemon.testing.PluginFrames;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A daemon with {@code southbound.enabled: false} and an OpenSM socket, without TLS files or {@code security.insecure}:
 * it starts, binds nothing on the configured southbound port, says so in its start event, logs no WARN about a
 * plaintext southbound, and routes OpenSM's subnet through the socket.
 */
class SouthboundDisabledTest {
    @TempDir
    Path dir;

    @Test
    void anOpenSmOnlyDaemonStartsWithoutASouthboundAndRoutesOpenSmsSubnet() throws Exception {
        int southboundPort = freePort();
        Path socket = dir.resolve("opensm.sock");
        DaemonConfig base = DaemonConfig.defaults().withDetector(false).withSouthboundBind("127.0.0.1")
                .withPorts(southboundPort, 0).withStateDirectory(dir.resolve("state")).withDiscovery(300, 10_000)
                .withOpenSm(OpenSm.of(socket.toString(), null, List.of(), null));
        DaemonConfig config = base.withSouthbound(base.southbound().withEnabled(false));
        assertThat(config.security().tlsConfigured()).isFalse();
        assertThat(config.security().insecure()).isFalse();

        try (LogCapture security = LogCapture.of(SouthboundSecurity.class);
             FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of())) {
            assertThat(daemon.southboundAddress()).isNull();
            assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), southboundPort).close())
                    .as("nothing listens on southbound.port").isInstanceOf(ConnectException.class);
            assertThat(security.events()).as("no WARN about a plaintext southbound")
                    .noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.WARN));
            List<Milestone> events = daemon.api().milestones(0).get(10, TimeUnit.SECONDS);
            assertThat(events).filteredOn(e -> e.kind() == Milestone.Kind.STARTED).singleElement()
                    .satisfies(e -> assertThat(e.message()).contains("started: no southbound, REST on ")
                            .doesNotContain("agents on"));
            assertThat(Files.exists(socket)).as("OpenSM's socket").isTrue();

            Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
            // the first pass may be refused while the daemon's discovery settles: OpenSM's plug-in routes again
            Await.value("OpenSM's subnet answered with tables", Duration.ofSeconds(60),
                    () -> PluginFrames.exchange(socket, PluginFrames.subnet(1, fabric)),
                    a -> a != null && a.type() == OpenSmWire.TABLES);
            Views.Status status = daemon.api().status().get(10, TimeUnit.SECONDS);
            assertThat(status.switches().connected()).as("OpenSM's switches").isEqualTo(fabric.switches().size());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
