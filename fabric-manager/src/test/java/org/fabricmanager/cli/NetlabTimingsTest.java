package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.fabricmanager.daemon.config.DaemonConfig;
import org.junit.jupiter.api.Test;

/** A netlab's daemon allows for agents that share one process and this machine's cores (NetlabUpCommand). */
class NetlabTimingsTest {
    @Test
    void labKeepalivesAndAcknowledgementsWaitLongerThanTheDefaults() {
        DaemonConfig defaults = DaemonConfig.defaults().withSouthboundBind("127.0.0.1").withPorts(0, 0);
        DaemonConfig lab = NetlabUpCommand.labTimings(defaults);
        assertThat(lab.southbound().echoIntervalMs()).isEqualTo(NetlabUpCommand.LAB_ECHO_MS)
                .isGreaterThan(defaults.southbound().echoIntervalMs());
        assertThat(lab.southbound().idleTimeoutMs()).isEqualTo(NetlabUpCommand.LAB_IDLE_MS)
                .isGreaterThan(3 * NetlabUpCommand.LAB_ECHO_MS);
        assertThat(lab.push().ackTimeoutMs()).isEqualTo(NetlabUpCommand.LAB_ACK_TIMEOUT_MS)
                .isGreaterThan(defaults.push().ackTimeoutMs());
        // everything else is the configuration given
        assertThat(lab.southbound().bind()).isEqualTo("127.0.0.1");
        assertThat(lab.push().retries()).isEqualTo(defaults.push().retries());
        assertThat(lab.withPush(defaults.push().ackTimeoutMs(), defaults.push().retries()).discovery())
                .isEqualTo(defaults.discovery());
        assertThat(lab.faults()).isEqualTo(defaults.faults());
    }
}
