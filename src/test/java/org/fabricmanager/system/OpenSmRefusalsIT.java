package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A refusal is not an absence (docs/opensm.md, "The plug-in's protocol"): a subnet the daemon refuses is refused once,
 * OpenSM routes with its fallback engine and says so, and nothing asks OpenSM to route again. Before protocol 4 the
 * daemon closed the connection on a subnet above {@code opensm.maxSubnetBytes}, which the plug-in read as the daemon
 * away: it asked OpenSM to re-route 1, 2, 4, 8 s later and on, refused each time.
 */
class OpenSmRefusalsIT {
    private static final Pattern REFUSALS = Pattern.compile("fabric_opensm_refusals_total\\{code=\"too_large\"[^}]*} ([0-9.]+)");
    /** Longer than the old loop's first four re-routes (1 + 2 + 4 + 8 s): a loop would show in it. */
    private static final long WATCH_MS = 20_000;

    static OpenSmLab tools;
    static Path dir;

    @BeforeAll
    static void tools() throws Exception {
        tools = OpenSmLab.require();
        dir = Files.createDirectories(tools.plugin().directory().resolveSibling("opensm-refusals-it"));
    }

    @Test
    void aSubnetAboveTheBoundIsRefusedOnceAndOpenSmKeepsItsFallbackWithoutARerouteLoop() throws Exception {
        Path work = dir.resolve("too-large");
        OpenSmRoutingIT.deleteTree(work);
        Files.createDirectories(work);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"));
        Path socket = work.resolve("opensm.sock");
        Process opensm = null;
        // the least bound the daemon takes, below this subnet's report (about 1.6 KB)
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(OpenSmLab.daemonConfig(work.resolve("state"), socket)
                .withOpenSm(OpenSm.of(socket.toString(), null, null, 1024)), List.of());
             IbsimFabric lab = IbsimFabric.start(tools.tools(), fabric, work.resolve("ibsim"), OpenSmLab.TOOL_LIMIT_SECONDS)) {
            opensm = tools.plugin().startOpenSm(lab, socket, OpenSmLab.PLUGIN_TIMEOUT_MS, work.resolve("opensm"));
            Path log = work.resolve("opensm").resolve("opensm.log");
            Await.until("OpenSM's subnet up on its fallback", java.time.Duration.ofSeconds(60),
                    () -> read(log).contains("SUBNET UP") && refusals(daemon) >= 1);
            long upAt = System.nanoTime();
            // the scenario is what does not happen: no pass asked again while OpenSM's subnet stays as it is
            while (System.nanoTime() - upAt < WATCH_MS * 1_000_000) {
                assertThat(refusals(daemon)).as("subnets refused as too large").isEqualTo(1);
                Thread.sleep(500);
            }
            String text = read(log);
            assertThat(text).as("OpenSM routed with its fallback, and said so").contains("minhop");
            assertThat(text).as("no take-back: OpenSM was never asked to re-route")
                    .doesNotContain("asking OpenSM to re-route");
            assertThat(daemon.api().status().get().switches().connected()).as("no session made of a refused subnet").isZero();
        } finally {
            OpenSmLab.stop(opensm);
        }
    }

    private static double refusals(FabricManagerDaemon daemon) {
        Matcher m = REFUSALS.matcher(daemon.metrics().scrape());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
