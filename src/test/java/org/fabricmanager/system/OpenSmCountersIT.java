package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.PortCountersView;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.OpenSmPlugin;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Port counters under OpenSM (docs/opensm.md, "Port counters"): with OpenSM's performance manager on, the counters it
 * reads from the simulated switches reach the daemon's port counters of each switch, as an agent's do: reporting,
 * one entry per port, packets counted (OpenSM's own management traffic crosses every switch). Skipped when OpenSM,
 * ibsim, infiniband-diags or the plug-in are missing.
 */
class OpenSmCountersIT {
    private static final long TOOL_LIMIT_SECONDS = OpenSmLab.TOOL_LIMIT_SECONDS;

    static OpenSmLab lab;

    @BeforeAll
    static void tools() {
        lab = OpenSmLab.require();
    }

    @Test
    void theCountersOpenSmsPerformanceManagerReadsAreTheSwitchesPortCounters() throws Exception {
        Path work = lab.plugin().directory().resolveSibling("opensm-counters-it");
        OpenSmRoutingIT.deleteTree(work);
        Files.createDirectories(work);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"));
        Path socket = work.resolve("opensm.sock");
        DaemonConfig config = OpenSmLab.daemonConfig(work.resolve("state"), socket);
        Process opensm = null;
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of());
             IbsimFabric ibsim = IbsimFabric.start(lab.tools(), fabric, work.resolve("ibsim"), TOOL_LIMIT_SECONDS)) {
            opensm = lab.plugin().startOpenSm(ibsim, socket, OpenSmLab.PLUGIN_TIMEOUT_MS, work.resolve("opensm"),
                    OpenSmPlugin.Fallback.MINHOP, OpenSmPlugin.PERFMGR);
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == 8,
                    "the daemon converged on OpenSM's subnet");
            for (Views.Switch s : daemon.switches().get(10, TimeUnit.SECONDS)) {
                long guid = Long.parseUnsignedLong(s.guid().substring(2), 16);
                PortCountersView c = Await.value("the port counters of " + s.name() + " from OpenSM",
                        Duration.ofSeconds(TOOL_LIMIT_SECONDS), () -> daemon.portCounters(guid).get(10, TimeUnit.SECONDS),
                        v -> v.ports().size() == s.ports() && v.ports().stream().allMatch(p -> p.rxPackets() != null));
                assertThat(c.reporting()).isTrue();
                assertThat(c.ports().stream().map(p -> p.rxPackets().add(p.txPackets()))
                        .reduce(BigInteger.ZERO, BigInteger::add)).as("packets through " + s.name()).isPositive();
                assertThat(c.ports().stream().map(p -> p.rxErrors().add(p.rxDrops()).add(p.txDrops()))
                        .reduce(BigInteger.ZERO, BigInteger::add)).as("errors and drops of " + s.name()).isZero();
            }
        } finally {
            OpenSmLab.stop(opensm);
        }
    }
}
