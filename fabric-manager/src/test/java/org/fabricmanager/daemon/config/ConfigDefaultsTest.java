package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The defaults a configuration-less {@code run} gets are the ones the docs advise. */
class ConfigDefaultsTest {
    @Test
    void theFailureDetectorIsOnAndTheSouthboundListensOnLoopbackUnlessConfigured() {
        DaemonConfig d = DaemonConfig.defaults();
        assertThat(d.faults().detector().enabled()).as("the ring is the headline fault feature").isTrue();
        assertThat(d.southbound().bind()).as("docs/operations.md: not on 0.0.0.0").isEqualTo("127.0.0.1");
        assertThat(ConfigLoader.parse("faults:\n  detector:\n    enabled: false\n", "off.yaml").faults().detector()
                .enabled()).isFalse();
        assertThat(ConfigLoader.parse("southbound:\n  bind: 10.1.0.5\n", "bind.yaml").southbound().bind())
                .isEqualTo("10.1.0.5");
    }
}
