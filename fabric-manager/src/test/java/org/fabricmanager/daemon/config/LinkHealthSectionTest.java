package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LinkHealthSectionTest {

    @Test
    void aFileSetsThePolicyAndThresholdsAndOffReadsAsYamlsFalse() {
        DaemonConfig c = ConfigLoader.parse("""
                linkHealth:
                  policy: isolate
                  badPpm: {rxErrors: 5000, txErrors: 5000, rxDrops: 50000, txDrops: 50000}
                  probationMs: 120000
                """, "test.yaml");
        assertThat(c.linkHealth().mode()).isEqualTo(LinkHealthSection.Policy.ISOLATE);
        assertThat(c.linkHealth().badPpm().rxErrors()).isEqualTo(5_000);
        assertThat(c.linkHealth().suspectPpm()).isEqualTo(LinkHealthSection.defaults().suspectPpm());
        assertThat(c.linkHealth().probationMs()).isEqualTo(120_000);
        assertThat(ConfigLoader.parse("linkHealth:\n  policy: off\n", "t.yaml").linkHealth().mode())
                .isEqualTo(LinkHealthSection.Policy.OFF);
    }

    @Test
    void refusesAnUnknownPolicyABadThresholdUnderItsSuspectOneAndAHalfNamedCounterSet() {
        assertThatThrownBy(() -> ConfigLoader.parse("linkHealth:\n  policy: drain\n", "t.yaml"))
                .hasMessageContaining("linkHealth.policy must be off, advise or isolate");
        assertThatThrownBy(() -> ConfigLoader.parse("linkHealth:\n  badPpm: {rxErrors: 50, txErrors: 5000, "
                + "rxDrops: 50000, txDrops: 50000}\n", "t.yaml"))
                .hasMessageContaining("linkHealth.badPpm.rxErrors must be at least");
        assertThatThrownBy(() -> ConfigLoader.parse("linkHealth:\n  badPpm: {rxErrors: 5000}\n", "t.yaml"))
                .hasMessageContaining("name all four counters");
    }
}
