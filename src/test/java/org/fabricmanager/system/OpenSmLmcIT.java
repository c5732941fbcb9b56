package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.OpenSmPlugin;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.LidFabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The daemon as OpenSM's live routing engine with OpenSM's {@code lmc} above 0, under ibsim (docs/opensm.md, "Several
 * LIDs per port"), as {@link OpenSmRoutingIT} runs it with one LID per port. Skipped when OpenSM, ibsim,
 * infiniband-diags or the plug-in are missing.
 */
class OpenSmLmcIT {
    /** OpenSM, ibsim and the plug-in. */
    private static OpenSmLab parts;
    /** Under target/, so that OpenSM's and ibsim's logs stay for a look after a failure. */
    private static Path dir;

    @BeforeAll
    static void parts() throws IOException {
        parts = OpenSmLab.require();
        dir = Files.createDirectories(parts.plugin().directory().resolveSibling("opensm-lmc-it"));
    }

    /**
     * OpenSM's {@code lmc}: every CA port answers to 2^lmc LIDs, and the daemon routes each as a destination of its own
     * (docs/opensm.md, "Several LIDs per port"). The tables {@code ibroute} reads back hold an entry for every LID of
     * every port on every switch, equal offline {@code route --lft-format opensm} of what ibnetdiscover sees (its
     * {@code lmc} read from the CA ports' lines), and at every leaf the LIDs of a port on another leaf leave through
     * distinct uplinks (this fabric's leaves have four).
     */
    @ParameterizedTest(name = "lmc {0}")
    @ValueSource(ints = {1, 2})
    void everyLidOfEveryPortIsRoutedUnderOpenSmsLmc(int lmc) throws Exception {
        Path work = dir.resolve("lmc" + lmc);
        OpenSmRoutingIT.deleteTree(work);
        Files.createDirectories(work);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"));
        Path socket = work.resolve("opensm.sock");
        DaemonConfig config = SystemSupport.config(work.resolve("state"), null).withDiscovery(300, 30_000)
                .withOpenSm(OpenSm.of(socket.toString(), null, null, null));
        Process opensm = null;
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of());
             IbsimFabric lab = IbsimFabric.start(parts.tools(), fabric, work.resolve("ibsim"),
                     OpenSmLab.TOOL_LIMIT_SECONDS)) {
            Path osmDir = work.resolve("opensm");
            opensm = parts.plugin().startOpenSm(lab, socket, OpenSmLab.PLUGIN_TIMEOUT_MS, osmDir, OpenSmPlugin.Fallback.MINHOP,
                    "lmc " + lmc + "\n");
            OpenSmLab.awaitLog(osmDir.resolve("opensm.log"), "routed by the daemon", 1);
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED
                    && s.switches().connected() == fabric.switches().size(), "the daemon converged on OpenSM's subnet");
            OpenSmLab.awaitSubnetUp(osmDir);
            LidFabric seen = OpenSmRoutingIT.assertTablesEqualOffline(lab, work.resolve("tables"), null);
            assertThat(seen.fabric().lmc()).as("ibnetdiscover's CA ports give the LMC").isEqualTo(lmc);
            Map<String, Map<Integer, Integer>> read = new TreeMap<>();
            for (FabricSwitch sw : seen.fabric().switches()) {
                int lid = seen.lids().lid(sw.guid()).orElseThrow();
                read.putAll(OpenSmRoutingIT.tables(Files.readAllLines(work.resolve("tables").resolve("ibroute-" + lid + ".txt"))));
            }
            int lids = 1 << lmc;
            int distinctChecked = 0;
            for (FabricSwitch sw : seen.fabric().switches()) {
                Map<Integer, Integer> table = read.get(String.format("%016x", sw.guid()));
                boolean leaf = sw.name().startsWith("s1-");
                for (var node : seen.fabric().nodes()) {
                    int base = seen.lids().lid(node.guid()).orElseThrow();
                    List<Integer> ports = new ArrayList<>();
                    for (int bits = 0; bits < lids; bits++) {
                        assertThat(table).as("switch %s, LID %d of %s", sw.name(), base + bits, node.name())
                                .containsKey(base + bits);
                        ports.add(table.get(base + bits));
                    }
                    if (leaf && ports.stream().allMatch(p -> p > 4)) { // ports 5-8: the leaf's uplinks
                        assertThat(ports).as("leaf %s: the uplinks of %s's %d LIDs", sw.name(), node.name(), lids)
                                .doesNotHaveDuplicates();
                        distinctChecked++;
                    }
                }
            }
            assertThat(distinctChecked).as("leaf and remote port pairs").isEqualTo(4 * 12);
        } finally {
            if (opensm != null) {
                opensm.destroy();
                opensm.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
