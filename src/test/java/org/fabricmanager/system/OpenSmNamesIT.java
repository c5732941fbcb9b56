package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.IbsimNet;
import org.fabricmanager.opensm.OpenSmPlugin;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Switch names of 70 bytes of UTF-8 in three scripts reach the daemon cut on a character's end, so that the daemon
 * takes the subnet, names the switches so and routes them, with no refusal (docs/opensm.md, "The plug-in's protocol").
 * Before protocol 4 the plug-in cut a name at 64 bytes inside a character and every pass was refused. Two ways a long
 * name reaches the plug-in under ibsim, on {@code PGFT(2;4,4;1,4;1,1)}: a device's NodeDescription, which ibsim keeps
 * to 63 bytes, here ending inside a character the plug-in leaves out; and OpenSM's {@code node_name_map_name}, which
 * gives the whole 70 bytes, cut by the plug-in at 64 inside a character. Skipped when OpenSM, ibsim, infiniband-diags
 * or the plug-in are missing.
 */
class OpenSmNamesIT {
    /** 20 bytes, 23 two-byte characters, a three-byte one and "!": 70 bytes; ibsim keeps 63, the 63rd inside an "é". */
    private static final String DEVICE_NAME = "sw-\u00e9-\u00df-\u4ea4\u6362\u673a-x" + "\u00e9".repeat(23) + "\u4ea4!";
    /** What the daemon is sent of it: 62 bytes, the cut "é" left out. */
    private static final String DEVICE_CUT = "sw-\u00e9-\u00df-\u4ea4\u6362\u673a-x" + "\u00e9".repeat(21);
    /** 12 bytes, 25 two-byte characters, then "東" across the 64-byte cut (bytes 62 to 64), "é" and "xyz": 70 bytes. */
    private static final String MAPPED_NAME = "leaf-\u6771\u4eac-" + "\u00df".repeat(25) + "\u6771\u00e9xyz";
    /** What the daemon is sent of it: 62 bytes, "東" left out whole. */
    private static final String MAPPED_CUT = "leaf-\u6771\u4eac-" + "\u00df".repeat(25);

    static OpenSmLab lab;

    @BeforeAll
    static void tools() {
        lab = OpenSmLab.require();
    }

    @Test
    void switchesNamedWithSeventyBytesOfUtf8AreNamedCutOnACharacterAndRouted() throws Exception {
        assertThat(bytes(DEVICE_NAME)).hasSize(70);
        assertThat(bytes(DEVICE_NAME)[62] & 0xc0).as("ibsim's 63-byte cut ends inside a character").isEqualTo(0xc0);
        assertThat(bytes(DEVICE_CUT)).hasSize(62);
        assertThat(bytes(MAPPED_NAME)).hasSize(70);
        assertThat(bytes(MAPPED_NAME)[64] & 0xc0).as("the 64-byte cut falls inside a character").isEqualTo(0x80);
        assertThat(bytes(MAPPED_CUT)).hasSize(62);

        Path work = lab.plugin().directory().resolveSibling("opensm-names-it");
        OpenSmRoutingIT.deleteTree(work);
        Files.createDirectories(work);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"));
        FabricSwitch renamed = fabric.switches().get(fabric.switches().size() - 1);
        // ibsim's net file names each device by its record's id: that switch's id becomes its NodeDescription
        Path net = work.resolve("ibsim.net");
        IbsimNet.write(fabric, net);
        String id = "\"" + IbsimNet.id(renamed.name(), renamed.guid()) + "\"";
        String text = Files.readString(net, StandardCharsets.UTF_8);
        assertThat(text).contains(id);
        Files.writeString(net, text.replace(id, "\"" + DEVICE_NAME + "\""), StandardCharsets.UTF_8);

        Path socket = work.resolve("opensm.sock");
        Process opensm = null;
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(OpenSmLab.daemonConfig(work.resolve("state"), socket),
                List.of());
             IbsimFabric ibsim = IbsimFabric.start(lab.tools(), net, fabric, work.resolve("ibsim"),
                     OpenSmLab.TOOL_LIMIT_SECONDS)) {
            // ibsim gives the switches GUIDs of its own: a leaf away from OpenSM's port (on s1-0), as discovered, is
            // named in OpenSM's node name map
            Fabric seen = IbnetdiscoverReader.read(ibsim.ibnetdiscover(work.resolve("ibnet.txt"), OpenSmLab.TOOL_LIMIT_SECONDS));
            FabricSwitch mapped = seen.switches().stream().filter(s -> s.name().startsWith("s1-1_")).findFirst()
                    .orElseThrow();
            Path names = work.resolve("node-name-map");
            Files.writeString(names, String.format("0x%016x \"%s\"%n", mapped.guid(), MAPPED_NAME), StandardCharsets.UTF_8);
            opensm = lab.plugin().startOpenSm(ibsim, socket, OpenSmLab.PLUGIN_TIMEOUT_MS, work.resolve("opensm"),
                    OpenSmPlugin.Fallback.MINHOP, "node_name_map_name " + names + "\n");
            Path log = work.resolve("opensm").resolve("opensm.log");
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED
                    && s.switches().connected() == fabric.switches().size(), "the daemon converged on OpenSM's subnet");
            for (String cut : List.of(DEVICE_CUT, MAPPED_CUT)) {
                Views.Switch named = Await.value("the switch named '" + cut + "' holding the daemon's tables",
                        Duration.ofSeconds(OpenSmLab.TOOL_LIMIT_SECONDS), () -> daemon.api().switches().get(10, TimeUnit.SECONDS)
                                .stream().filter(s -> s.name().equals(cut) && s.inSync()).findFirst().orElse(null),
                        s -> s != null);
                assertThat(named.connected()).isTrue();
                assertThat(daemon.api().lft(Long.parseUnsignedLong(named.guid().substring(2), 16)).get(10, TimeUnit.SECONDS)
                        .entries()).as("the table the daemon routed for " + named.guid()).isNotEmpty();
            }
            assertThat(daemon.api().switches().get(10, TimeUnit.SECONDS)).filteredOn(s -> s.name().equals(MAPPED_CUT))
                    .extracting(Views.Switch::guid).as("the name the map gave").containsExactly(Guids.format(mapped.guid()));
            String osmLog = Files.readString(log, StandardCharsets.ISO_8859_1);
            assertThat(osmLog).as("OpenSM's log " + log).contains("routed by the daemon")
                    .doesNotContain("daemon refused").doesNotContain("OpenSM falls back");
        } finally {
            OpenSmLab.stop(opensm);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
