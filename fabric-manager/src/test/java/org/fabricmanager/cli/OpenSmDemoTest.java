package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.fabricmanager.opensm.OpenSmPlugin;
import org.fabricmanager.opensm.OpenSmTools;
import org.junit.jupiter.api.Test;

/**
 * {@code demo --opensm} says in one line what to install when a tool or the plug-in is missing, and refuses the
 * agents' demo options, before it starts anything.
 */
class OpenSmDemoTest {
    private static final Path JAR = Path.of("/opt/fabric-manager/lib/fabric-manager.jar");

    @Test
    void missingToolsOrPluginAreNamedInOneLineWithWhatToInstall() {
        String tools = OpenSmDemo.missing(false, List.of("opensm (opensm)", "ibsim and libumad2sim (ibsim-utils)"),
                Optional.empty(), JAR);
        assertThat(tools).startsWith("demo --opensm: opensm (opensm), ibsim and libumad2sim (ibsim-utils) not found")
                .endsWith(OpenSmTools.INSTALL_HINT).doesNotContain("\n");
        String plugin = OpenSmDemo.missing(true, List.of(), Optional.empty(), JAR);
        assertThat(plugin).contains(OpenSmPlugin.LIBRARY).contains(JAR.toString()).contains("libopensm-dev")
                .doesNotContain("\n");
        assertThat(OpenSmDemo.missing(true, List.of(), Optional.of(new OpenSmPlugin(Path.of("/opt/fm/lib/opensm"))), JAR))
                .isNull();
    }

    @Test
    void theAgentsDemoOptionsAreRefusedWithExitTwo() {
        CliRun hdft = CliRun.of("demo", "--opensm", "--hdft", "HDFT(2x2;1;1;1)");
        assertThat(hdft.exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(hdft.err().strip()).isEqualTo("demo --opensm: --hdft is for the agents' demo; OpenSM's runs a --pgft");
        CliRun pgft = CliRun.of("demo", "--opensm", "--pgft", "PGFT(2;4,4;1,4)");
        assertThat(pgft.exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(pgft.err()).startsWith("demo --opensm: ").doesNotContain("Exception");
    }

    @Test
    void theHelpDescribesTheOpenSmDemo() {
        CliRun help = CliRun.of("demo", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("fabric-manager demo --opensm [--pgft SPEC]").contains(OpenSmDemo.DEFAULT_PGFT)
                .contains("IBSIM_SOCKNAME");
    }
}
