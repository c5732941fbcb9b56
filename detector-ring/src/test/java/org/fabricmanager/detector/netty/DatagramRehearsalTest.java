package org.fabricmanager.detector.netty;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DatagramRehearsalTest {

    @Test
    void everyRehearsedHeartbeatComesThroughTheWholePathIntact() {
        // sealed, opened, past the replay window and decoded back to the same heartbeat: a rehearsal that skipped
        // a step, or a path that broke, would not count them all
        assertThat(DatagramRehearsal.run(2_000)).isEqualTo(2_000);
        assertThat(DatagramRehearsal.run(0)).isZero();
    }
}
