package org.fabricmanager.detector.netty;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DatagramRehearsalTest {

    @Test
    void everyRehearsedHeartbeatComesThroughTheWholePathIntact() {
        // sealed, opened, past the replay window and decoded back to the same heartbeat: a rehearsal that skipped
        // a step, or a path that broke, would not count them all
        assertThat(DatagramRehearsal.run(2_000)).isEqualTo(2_000);
        assertThat(DatagramRehearsal.run(0)).isZero();
    }

    @Test
    void aRehearsalUntilCompiledStopsAfterThreeFastBatchesInARow() {
        // every batch counts as fast under an unbounded cost: three of them, and no more
        DatagramRehearsal.Outcome o = DatagramRehearsal.untilFast(100_000, TimeUnit.SECONDS.toNanos(60), Long.MAX_VALUE);
        assertThat(o.fast()).isTrue();
        assertThat(o.heartbeats()).isEqualTo(DatagramRehearsal.FAST_BATCHES * DatagramRehearsal.BATCH);
        assertThat(o.intact()).isEqualTo(o.heartbeats());
        assertThat(o.nanosPerHeartbeat()).isPositive();
    }

    @Test
    void aPathThatNeverGetsFastStopsAtItsBoundsAndSaysSo() {
        // no batch costs less than nothing: the count bounds it, to the heartbeat (a partial last batch)
        DatagramRehearsal.Outcome byCount = DatagramRehearsal.untilFast(2_200, TimeUnit.SECONDS.toNanos(60), 0);
        assertThat(byCount.fast()).isFalse();
        assertThat(byCount.heartbeats()).isEqualTo(2_200);
        assertThat(byCount.intact()).isEqualTo(2_200);
        // and the wall clock does: no time, no heartbeat
        DatagramRehearsal.Outcome byTime = DatagramRehearsal.untilFast(100_000, 0, Long.MAX_VALUE);
        assertThat(byTime.fast()).isFalse();
        assertThat(byTime.heartbeats()).isZero();
    }
}
