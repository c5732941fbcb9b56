package org.fabricmanager.daemon.opensm;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.daemon.config.Southbound;
import org.fabricmanager.daemon.testing.PluginFrames;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A switch that leaves OpenSM's subnet is a fabric change OpenSM's discovery saw, not a lost session that may be an
 * outage of the management network: it is routed around at once, not after the wait (two keepalive periods) that
 * judges a burst of lost sessions. That wait held the answer to OpenSM's sweep for 3.7 s after a level-2 switch was
 * unlinked at 4,096 nodes, making the whole reaction slower than OpenSM's own ftree.
 */
class OpenSmSwitchLossTest {
    /** Keepalives 20 s apart: a lost session's burst would be judged 40 s after it. */
    private static final int ECHO_INTERVAL_MS = 20_000;

    @TempDir
    Path dir;

    @Test
    void aSwitchGoneFromOpenSmsSubnetIsRoutedAroundWithoutTheWaitOfALostSession() throws Exception {
        Path socket = dir.resolve("opensm.sock");
        DaemonConfig base = DaemonConfig.defaults().withDetector(false).withPorts(0, 0)
                .withStateDirectory(Files.createDirectories(dir.resolve("state"))).withDiscovery(300, 10_000)
                .withOpenSm(OpenSm.of(socket.toString(), "0600", List.of(), null));
        Southbound sb = base.southbound();
        DaemonConfig config = new DaemonConfig(new Southbound(sb.bind(), sb.port(), sb.maxFrameBytes(),
                sb.handshakeTimeoutMs(), ECHO_INTERVAL_MS, 3 * ECHO_INTERVAL_MS, sb.ioThreads(), sb.tlsHandshakesAtOnce(),
                sb.tlsQueueLength(), sb.tlsQueueWaitMs(), sb.tlsHandshakeTimeoutMs()), base.rest(), base.fabric(),
                base.discovery(), base.routing(), base.push(), base.state(), base.faults(), base.security(), base.ha(),
                base.opensm());
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
        long spine = PgftGenerator.switchGuid(2, 0);
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config, StartOptions.of(List.of()).registry(new SimpleMeterRegistry()))) {
            assertThat(PluginFrames.exchange(socket, PluginFrames.subnet(1, fabric)).type()).isEqualTo(OpenSmWire.TABLES);

            long sent = System.nanoTime();
            PluginFrames.Answer degraded = PluginFrames.exchange(socket,
                    PluginFrames.subnet(2, fabric.withoutSwitches(List.of(spine))));
            long answeredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
            assertThat(degraded.type()).as(degraded.reason()).isEqualTo(OpenSmWire.TABLES);
            assertThat(answeredMs).as("answered without the %d ms wait of a lost session", 2 * ECHO_INTERVAL_MS)
                    .isLessThan(ECHO_INTERVAL_MS);
            List<Milestone> events = daemon.api().milestones(0).get(10, TimeUnit.SECONDS);
            assertThat(events).filteredOn(e -> e.kind() == Milestone.Kind.SWITCH_LOST).singleElement()
                    .extracting(Milestone::message).asString().contains("OpenSM's subnet no longer holds it");
            assertThat(events).noneMatch(e -> e.kind() == Milestone.Kind.MANAGEMENT_OUTAGE);
        }
    }
}
