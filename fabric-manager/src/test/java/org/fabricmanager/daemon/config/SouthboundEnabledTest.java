package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code southbound.enabled}: on by default; off only beside an OpenSM socket, since a daemon with neither could never
 * be reached by anything that manages a switch; a change needs a restart.
 */
class SouthboundEnabledTest {
    private static final String OPENSM_ONLY = """
            southbound:
              enabled: false
            opensm:
              socket: /run/fabric-manager/opensm.sock
            """;

    @Test
    void theSouthboundIsOnUnlessSwitchedOff() {
        assertThat(DaemonConfig.defaults().southbound().enabled()).isTrue();
        assertThat(ConfigLoader.parse("southbound:\n  port: 7000\n", "fm.yaml").southbound().enabled()).isTrue();
        DaemonConfig openSmOnly = ConfigLoader.parse(OPENSM_ONLY, "fm.yaml");
        assertThat(openSmOnly.southbound().enabled()).isFalse();
        assertThat(openSmOnly.opensm().socket()).isEqualTo("/run/fabric-manager/opensm.sock");
        assertThat(openSmOnly.withPorts(0, 0).southbound().enabled()).as("kept by the command-line overrides").isFalse();
    }

    @Test
    void offWithoutAnOpenSmSocketIsRefusedNamingBothOptionsAndTheLine() {
        assertThatThrownBy(() -> ConfigLoader.parse("rest:\n  port: 7680\nsouthbound:\n  enabled: false\n", "fm.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("fm.yaml:4: option southbound.enabled is false and opensm.socket is not set")
                .hasMessageContaining("no agent and no OpenSM could reach this daemon")
                .hasMessageContaining("set opensm.socket").hasMessageContaining("leave southbound.enabled true");
        DaemonConfig openSmOnly = ConfigLoader.parse(OPENSM_ONLY, "fm.yaml");
        assertThatThrownBy(() -> openSmOnly.withOpenSm(OpenSm.of(null, null, List.of(), null)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("southbound.enabled")
                .hasMessageContaining("opensm.socket");
        DaemonConfig defaults = DaemonConfig.defaults();
        assertThatThrownBy(() -> defaults.withSouthbound(defaults.southbound().withEnabled(false)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("southbound.enabled");
    }

    @Test
    void switchingTheSouthboundOnOrOffNeedsARestart() {
        DaemonConfig running = ConfigLoader.parse(OPENSM_ONLY, "fm.yaml");
        DaemonConfig read = running.withSouthbound(running.southbound().withEnabled(true));
        ConfigReload plan = ConfigReload.plan(running, read);
        assertThat(plan.needRestart()).anySatisfy(c -> assertThat(c).contains("southbound"));
        assertThat(plan.effective().southbound().enabled()).as("the running value stays").isFalse();
    }
}
