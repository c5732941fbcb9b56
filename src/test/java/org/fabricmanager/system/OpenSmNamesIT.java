package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.IbsimNet;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A switch whose node description is 70 bytes of UTF-8 in three scripts (docs/opensm.md, "The plug-in's protocol"):
 * the device gives OpenSM its first 64 bytes, which end inside a character. The plug-in sends the name cut on the
 * character's start, so the daemon takes the subnet: it names the switch so and routes it, with no refusal. Before
 * protocol 4 the cut character made the name invalid UTF-8, and every pass was refused. Skipped when OpenSM, ibsim,
 * infiniband-diags or the plug-in are missing.
 */
class OpenSmNamesIT {
    /** 19 bytes, then 24 two-byte characters, then a three-byte one: 70 bytes, the 65th inside an "é". */
    private static final String NAME = "sw-é-ß-交换机-" + "é".repeat(24) + "交";

    static OpenSmLab lab;

    @BeforeAll
    static void tools() {
        lab = OpenSmLab.require();
    }

    @Test
    void aSwitchNamedWithSeventyBytesOfUtf8IsNamedCutOnACharacterAndRouted() throws Exception {
        byte[] utf8 = NAME.getBytes(StandardCharsets.UTF_8);
        assertThat(utf8).as("the name's bytes").hasSize(70);
        assertThat(utf8[64] & 0xc0).as("the 64-byte cut falls inside a character").isEqualTo(0x80);
        int keep = 64;
        while ((utf8[keep] & 0xc0) == 0x80) {
            keep--;
        }
        String cut = new String(Arrays.copyOf(utf8, keep), StandardCharsets.UTF_8);

        Path work = lab.plugin().directory().resolveSibling("opensm-names-it");
        OpenSmRoutingIT.deleteTree(work);
        Files.createDirectories(work);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"));
        FabricSwitch renamed = fabric.switches().get(fabric.switches().size() - 1);
        // ibsim's net file names each device by its record's id: that switch's id becomes the long name
        Path net = work.resolve("ibsim.net");
        IbsimNet.write(fabric, net);
        String id = "\"" + IbsimNet.id(renamed.name(), renamed.guid()) + "\"";
        String text = Files.readString(net, StandardCharsets.UTF_8);
        assertThat(text).contains(id);
        Files.writeString(net, text.replace(id, "\"" + NAME + "\""), StandardCharsets.UTF_8);

        Path socket = work.resolve("opensm.sock");
        Process opensm = null;
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(OpenSmLab.daemonConfig(work.resolve("state"), socket),
                List.of());
             IbsimFabric ibsim = IbsimFabric.start(lab.tools(), net, fabric, work.resolve("ibsim"),
                     OpenSmLab.TOOL_LIMIT_SECONDS)) {
            opensm = lab.plugin().startOpenSm(ibsim, socket, OpenSmLab.PLUGIN_TIMEOUT_MS, work.resolve("opensm"));
            Path log = work.resolve("opensm").resolve("opensm.log");
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED
                    && s.switches().connected() == fabric.switches().size(), "the daemon converged on OpenSM's subnet");
            Views.Switch named = Await.value("the switch named '" + cut + "' holding the daemon's tables",
                    Duration.ofSeconds(OpenSmLab.TOOL_LIMIT_SECONDS), () -> daemon.switches().get(10, TimeUnit.SECONDS)
                            .stream().filter(s -> s.name().equals(cut) && s.inSync()).findFirst().orElse(null),
                    s -> s != null);
            assertThat(named.connected()).isTrue();
            assertThat(daemon.lft(Long.parseUnsignedLong(named.guid().substring(2), 16)).get(10, TimeUnit.SECONDS)
                    .entries()).as("the table the daemon routed for " + named.guid()).isNotEmpty();
            String osmLog = Files.readString(log, StandardCharsets.ISO_8859_1);
            assertThat(osmLog).as("OpenSM's log " + log).contains("routed by the daemon")
                    .doesNotContain("daemon refused").doesNotContain("OpenSM falls back");
        } finally {
            OpenSmLab.stop(opensm);
        }
    }
}
