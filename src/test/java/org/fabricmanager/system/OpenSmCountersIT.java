package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.PortCountersView;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.OpenSmPlugin;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.LidFabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Port counters under OpenSM (docs/opensm.md, "Port counters"): with OpenSM's performance manager on, the counters it
 * reads from the simulated switches reach the daemon's port counters of each switch, as an agent's do: reporting,
 * one entry per port, packets counted (OpenSM's own management traffic crosses every switch), and the error counters
 * of a few ports equal to what {@code perfquery} reads. Skipped when OpenSM, ibsim, infiniband-diags or the plug-in
 * are missing.
 */
class OpenSmCountersIT {
    private static final long TOOL_LIMIT_SECONDS = OpenSmLab.TOOL_LIMIT_SECONDS;
    private static final Pattern FIELD = Pattern.compile("(?m)^(\\w+):\\.*(\\d+)$");

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
            for (Views.Switch s : daemon.api().switches().get(10, TimeUnit.SECONDS)) {
                long guid = Long.parseUnsignedLong(s.guid().substring(2), 16);
                PortCountersView c = Await.value("the port counters of " + s.name() + " from OpenSM",
                        Duration.ofSeconds(TOOL_LIMIT_SECONDS), () -> daemon.api().portCounters(guid).get(10, TimeUnit.SECONDS),
                        v -> v.ports().size() == s.ports() && v.ports().stream().allMatch(p -> p.rxPackets() != null));
                assertThat(c.reporting()).isTrue();
                assertThat(c.ports().stream().map(p -> p.rxPackets().add(p.txPackets()))
                        .reduce(BigInteger.ZERO, BigInteger::add)).as("packets through " + s.name()).isPositive();
                assertThat(c.ports().stream().map(p -> p.rxErrors().add(p.rxDrops()).add(p.txDrops()))
                        .reduce(BigInteger.ZERO, BigInteger::add)).as("errors and drops of " + s.name()).isZero();
            }
            assertErrorCountersArePerfquerys(daemon, ibsim, work);
        } finally {
            OpenSmLab.stop(opensm);
        }
    }

    /**
     * Error counters set at ibsim's console on a few switch ports, each port to other values (they do not move with
     * traffic, as the packet counters do): the daemon's counters of each port, OpenSM's readings added up, come to what
     * {@code perfquery} reads from the simulated switch, field by field as docs/opensm.md maps them.
     */
    private static void assertErrorCountersArePerfquerys(FabricManagerDaemon daemon, IbsimFabric ibsim, Path work)
            throws Exception {
        LidFabric seen = IbnetdiscoverReader.readWithLids(ibsim.ibnetdiscover(work.resolve("ibnet.txt"),
                TOOL_LIMIT_SECONDS));
        // the daemon's switches are OpenSM's: ibsim's GUIDs, and its node ids as their descriptions
        List<Views.Switch> switches = daemon.api().switches().get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            Views.Switch s = switches.get(i * 3);
            int port = 1 + i;
            String at = "PerformanceSet \"" + s.name() + "\"[" + port + "] PortCounters.";
            ibsim.console(at + "PortRcvErrors=" + (11 + 10 * i));
            ibsim.console(at + "PortRcvConstraintErrors=" + (1 + i));
            ibsim.console(at + "SymbolErrorCounter=" + (7 + i));
            ibsim.console(at + "LinkErrorRecoveryCounter=" + (4 + i));
            ibsim.console(at + "LinkDownedCounter=" + (1 + i));
            ibsim.console(at + "PortXmitConstraintErrors=" + (2 + i));
            ibsim.console(at + "PortRcvSwitchRelayErrors=" + (5 + i));
            ibsim.console(at + "PortXmitDiscards=" + (3 + i));
        }
        for (int i = 0; i < 3; i++) {
            Views.Switch s = switches.get(i * 3);
            long guid = Long.parseUnsignedLong(s.guid().substring(2), 16);
            int port = 1 + i;
            int lid = seen.lids().lid(guid).orElseThrow();
            Map<String, Long> read = perfquery(ibsim.perfquery(lid, port, work.resolve("perfquery-" + lid + "-" + port
                    + ".txt"), TOOL_LIMIT_SECONDS));
            List<BigInteger> expected = List.of(
                    sum(read, "PortRcvErrors", "PortRcvRemotePhysicalErrors", "PortRcvConstraintErrors",
                            "SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter"),
                    sum(read, "PortXmitConstraintErrors"), sum(read, "PortRcvSwitchRelayErrors", "VL15Dropped"),
                    sum(read, "PortXmitDiscards"));
            assertThat(expected.get(0)).as("perfquery reads what the console set")
                    .isEqualTo(BigInteger.valueOf(11 + 10 * i + 1 + i + 7 + i + 4 + i + 1 + i));
            PortCountersView.Port counted = Await.value(s.name() + " port " + port + "'s error counters from OpenSM",
                    Duration.ofSeconds(TOOL_LIMIT_SECONDS), () -> portOf(daemon, guid, port),
                    p -> p != null && errors(p).equals(expected));
            assertThat(errors(counted)).as(s.name() + " port " + port + " against perfquery").isEqualTo(expected);
        }
    }

    private static PortCountersView.Port portOf(FabricManagerDaemon daemon, long guid, int port) throws Exception {
        for (PortCountersView.Port p : daemon.api().portCounters(guid).get(10, TimeUnit.SECONDS).ports()) {
            if (p.port() == port) {
                return p;
            }
        }
        return null;
    }

    private static List<BigInteger> errors(PortCountersView.Port p) {
        return List.of(p.rxErrors(), p.txErrors(), p.rxDrops(), p.txDrops());
    }

    private static BigInteger sum(Map<String, Long> read, String... fields) {
        BigInteger total = BigInteger.ZERO;
        for (String f : fields) {
            Long v = read.get(f);
            assertThat(v).as("perfquery's " + f).isNotNull();
            total = total.add(BigInteger.valueOf(v));
        }
        return total;
    }

    /** perfquery's fields, {@code PortRcvErrors:....11} per line. */
    private static Map<String, Long> perfquery(String text) {
        Map<String, Long> out = new HashMap<>();
        Matcher m = FIELD.matcher(text);
        while (m.find()) {
            out.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return out;
    }
}
