package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.IbsimNet;
import org.fabricmanager.opensm.OpenSmPlugin;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

/**
 * The hop matrices the plug-in keeps from pass to pass are OpenSM's own: on {@code PGFT(3;4,4,4;1,4,4;1,1,1)} under
 * ibsim, OpenSM with the plug-in routes the intact fabric, then a cable unlinked, linked again and another one unlinked
 * (passes that search only the targets a change can move, as its log says); OpenSM's dump of the matrices after the
 * last pass ({@code opensm-lid-matrix.dump}, log flag 0x40) equals, byte for byte, the dump of a plain OpenSM
 * ({@code minhop}, its own build) started afterwards on the same fabric with the same LIDs.
 */
class OpenSmHopMatricesIT {
    private static final Pattern SEARCHED = Pattern.compile("hop matrices of (\\d+) switches .*; (\\d+) targets searched");
    private static final String DUMP = "opensm-lid-matrix.dump";

    @Test
    void theKeptMatricesEqualOpenSmsOwnBuild() throws Exception {
        OpenSmLab lab = OpenSmLab.require();
        Path work = Files.createDirectories(lab.plugin().directory().resolveSibling("opensm-hop-matrices-it"));
        OpenSmRoutingIT.deleteTree(work);
        Files.createDirectories(work);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)"));
        List<Link> cables = fabric.links().stream().filter(l -> fabric.switchByGuid(l.b()).isPresent()).toList();
        Path socket = work.resolve("opensm.sock");
        Path osmDir = work.resolve("opensm");
        Path log = osmDir.resolve("opensm.log");
        Process opensm = null;
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(OpenSmLab.daemonConfig(work.resolve("state"), socket),
                List.of()); IbsimFabric ibsim = IbsimFabric.start(lab.tools(), fabric, work.resolve("ibsim"),
                OpenSmLab.TOOL_LIMIT_SECONDS)) {
            opensm = lab.plugin().startOpenSm(ibsim, socket, OpenSmLab.PLUGIN_TIMEOUT_MS, osmDir,
                    OpenSmPlugin.Fallback.MINHOP, "log_flags 0x43\n");
            awaitPassDone(log, "fabric-manager tables configured", 1);
            String[] changes = {"Unlink", "ReLink", "Unlink"};
            for (int i = 0; i < changes.length; i++) {
                Link cable = cables.get(i < 2 ? 0 : 5);
                FabricSwitch end = fabric.switchByGuid(cable.a()).orElseThrow();
                ibsim.console(changes[i] + " \"" + IbsimNet.id(end.name(), end.guid()) + "\"[" + cable.aPort() + "]");
                awaitPassDone(log, "fabric-manager tables configured", 2 + i);
            }
            List<String> built = lines(log, "hop matrices of");
            assertThat(built).hasSize(4);
            for (String line : built.subList(1, 4)) {
                Matcher m = SEARCHED.matcher(line);
                assertThat(m.find()).as(line).isTrue();
                assertThat(Integer.parseInt(m.group(2))).as("targets searched after one cable: %s", line)
                        .isLessThan(Integer.parseInt(m.group(1)));
            }
            Path kept = Files.copy(osmDir.resolve(DUMP), work.resolve("kept-" + DUMP));
            OpenSmLab.stop(opensm);
            opensm = null;

            // a plain OpenSM on the same fabric: the same LIDs (its guid2lid cache), its own hop matrices
            Path plain = osmDir.resolve("plain.conf");
            Files.writeString(plain, "routing_engine minhop\nsweep_interval 1\nlog_flags 0x43\nforce_log_flush TRUE\n");
            opensm = ibsim.startOpenSm(plain, osmDir, Map.of());
            awaitPassDone(log, "minhop tables configured", 1);
            assertThat(Files.readString(osmDir.resolve(DUMP))).as("OpenSM's own hop matrices against the kept ones")
                    .isEqualTo(Files.readString(kept));
        } finally {
            OpenSmLab.stop(opensm);
        }
    }

    /** Waits for the {@code pass}-th {@code configured} line and a SUBNET UP after it (the dumps are written before). */
    private static void awaitPassDone(Path log, String configured, int pass) {
        SystemSupport.awaitTrue(() -> {
            if (!Files.exists(log)) {
                return false;
            }
            List<String> all = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
            int seen = 0;
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).contains(configured) && ++seen == pass) {
                    return all.subList(i, all.size()).stream().anyMatch(l -> l.stripTrailing().endsWith("SUBNET UP"));
                }
            }
            return false;
        }, "OpenSM's log " + log + " shows pass " + pass + " ('" + configured + "') done", (int) OpenSmLab.TOOL_LIMIT_SECONDS);
    }

    private static List<String> lines(Path log, String text) throws IOException {
        return Files.readAllLines(log, StandardCharsets.ISO_8859_1).stream().filter(l -> l.contains(text)).toList();
    }
}
