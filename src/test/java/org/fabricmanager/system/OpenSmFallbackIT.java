package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.opensm.OpenSmFallbackFiles;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.IbsimNet;
import org.fabricmanager.opensm.OpenSmGuidFiles;
import org.fabricmanager.opensm.OpenSmPlugin;
import org.fabricmanager.opensm.OpenSmTools;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * OpenSM's fallback when the daemon is away (docs/opensm.md, "Failures and fallback"): on a degraded PGFT under ibsim,
 * OpenSM runs with the plug-in and {@code routing_engine fabric-manager,ftree,minhop}, its {@code root_guid_file} and
 * {@code cn_guid_file} naming the files the daemon keeps beside its socket. Once the daemon has routed OpenSM's subnet
 * those files hold what {@code compare} would give ftree (the top level, every end node's port); then the daemon stops,
 * a cable is unlinked at ibsim's console, and OpenSM's sweep must be routed by ftree on those files, not refused
 * ({@code ERR AB09}) and left to minhop. Skipped when OpenSM, ibsim, infiniband-diags or the plug-in are missing.
 */
class OpenSmFallbackIT {
    /** Bounds, not measures: a stuck tool must not hang the build. */
    private static final long TOOL_LIMIT_SECONDS = 120;
    private static final int PLUGIN_TIMEOUT_MS = 15_000;
    /** 48 switches, 64 nodes; with 5% of its cables removed ftree refuses it without the GUID files. */
    private static final String SPEC = "PGFT(3;4,4,4;1,4,4;1,1,1)";
    private static final DegradationPlan DEGRADATION = DegradationPlan.random(0.05, 0, 1);

    static OpenSmTools tools;
    static OpenSmPlugin plugin;

    @BeforeAll
    static void tools() {
        OpenSmLab lab = OpenSmLab.require();
        tools = lab.tools();
        plugin = lab.plugin();
    }

    @Test
    void withTheDaemonStoppedOpenSmRoutesADegradedTreeWithFtreeOnTheDaemonsGuidFiles() throws Exception {
        // under target/, so that OpenSM's and ibsim's logs stay for a look after a failure
        Path work = Files.createTempDirectory(Files.createDirectories(plugin.directory().resolveSibling("opensm-it")),
                "fallback-");
        Fabric fabric = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(SPEC)), DEGRADATION);
        String what = SPEC + " degraded by " + DEGRADATION;
        Path run = Files.createDirectories(work.resolve("run"));
        Path socket = run.resolve("opensm.sock");
        OpenSmPlugin.Fallback ftree = OpenSmPlugin.Fallback.ftree(run.resolve(OpenSmFallbackFiles.ROOTS),
                run.resolve(OpenSmFallbackFiles.COMPUTE_NODES));
        DaemonConfig config = OpenSmLab.daemonConfig(work.resolve("state"), socket);
        FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of());
        Process opensm = null;
        try (IbsimFabric lab = IbsimFabric.start(tools, fabric, work.resolve("ibsim"), TOOL_LIMIT_SECONDS)) {
            Path log = work.resolve("opensm").resolve("opensm.log");
            opensm = plugin.startOpenSm(lab, socket, PLUGIN_TIMEOUT_MS, work.resolve("opensm"), ftree);
            OpenSmLab.awaitLog(log, "routed by the daemon", 1);

            // written before the answer: the top level and the end nodes' ports, as compare hands them to ftree
            Path seen = lab.ibnetdiscover(work.resolve("ibnetdiscover.txt"), TOOL_LIMIT_SECONDS);
            OpenSmGuidFiles expected = OpenSmGuidFiles.write(seen, IbnetdiscoverReader.read(seen).index(),
                    Files.createDirectories(work.resolve("expected")));
            assertThat(Files.readAllLines(ftree.rootGuids())).as(what + ": the top level")
                    .hasSize(16).isEqualTo(Files.readAllLines(expected.roots()));
            assertThat(Files.readAllLines(ftree.computeNodes())).as(what + ": every end node's port")
                    .hasSize(64).isEqualTo(Files.readAllLines(expected.computeNodes()));

            daemon.close();
            daemon = null;
            assertThat(ftree.rootGuids()).as("the files stay while the daemon is away").isRegularFile();
            Link cable = fabric.links().stream().filter(l -> fabric.switchByGuid(l.b()).isPresent()).findFirst()
                    .orElseThrow();
            FabricSwitch end = fabric.switchByGuid(cable.a()).orElseThrow();
            lab.console("Unlink \"" + IbsimNet.id(end.name(), end.guid()) + "\"[" + cable.aPort() + "]");
            OpenSmLab.awaitLog(log, "OpenSM falls back to ftree", 1);
            // either engine's success ends the wait, so that a refused tree fails at once
            SystemSupport.awaitTrue(() -> readLog(log).contains("ftree tables configured on all switches")
                    || readLog(log).contains("minhop tables configured on all switches"),
                    "OpenSM's log " + log + " shows the fallback's tables configured", (int) TOOL_LIMIT_SECONDS);

            String text = readLog(log);
            assertThat(text).as(what + ": ftree accepted the tree (" + log + ")").doesNotContain("AB09")
                    .doesNotContain("minhop tables configured").contains("ftree tables configured on all switches")
                    .as("ftree read the daemon's compute-node file").contains("64 CA ports (64 of them CNs)");
            assertThat(opensm.isAlive()).isTrue();
        } finally {
            OpenSmLab.stop(opensm);
            if (daemon != null) {
                daemon.close();
            }
        }
    }

    /** OpenSM's log so far; empty before OpenSM opens it. */
    private static String readLog(Path log) throws IOException {
        return Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "";
    }
}
