package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import org.fabricmanager.daemon.faults.FlapGuard.Verdict;
import org.junit.jupiter.api.Test;

/**
 * {@link FlapGuard} with explicit timestamps: more than {@code threshold} downs within the window
 * quarantine a port, the window slides, and a quarantined port is released only after staying up for
 * the quarantine time, a down meanwhile restarting that period.
 */
class FlapGuardTest {
    static final long MS = 1_000_000L;
    static final long GUID = 0x1000000000000005L;
    static final int PORT = 7;

    /** Threshold 3 downs in 1 s; quarantine 5 s. */
    final FlapGuard guard = new FlapGuard(3, 1_000, 5_000);

    private Verdict flap(long atMs) {
        Verdict v = guard.transition(GUID, PORT, false, atMs * MS);
        guard.transition(GUID, PORT, true, (atMs + 10) * MS);
        return v;
    }

    @Test
    void thresholdDownsWithinTheWindowPassTheNextOneQuarantines() {
        assertThat(flap(0)).isEqualTo(Verdict.PASS);
        assertThat(flap(100)).isEqualTo(Verdict.PASS);
        assertThat(flap(200)).isEqualTo(Verdict.PASS);
        assertThat(guard.isQuarantined(GUID, PORT)).isFalse();
        assertThat(guard.quarantined()).isEmpty();
        assertThat(guard.transition(GUID, PORT, false, 300 * MS)).isEqualTo(Verdict.QUARANTINED);
        assertThat(guard.isQuarantined(GUID, PORT)).isTrue();
        assertThat(guard.hasQuarantined(GUID)).isTrue();
        assertThat(guard.isQuarantined(GUID, PORT + 1)).as("other port").isFalse();
        assertThat(guard.hasQuarantined(GUID + 1)).as("other switch").isFalse();
        assertThat(guard.quarantined()).singleElement().satisfies(q -> {
            assertThat(q.port()).isEqualTo(PORT);
            assertThat(q.flaps()).isEqualTo(4);
        });
        // further changes are masked while quarantined
        assertThat(guard.transition(GUID, PORT, true, 310 * MS)).isEqualTo(Verdict.MASKED);
        assertThat(guard.transition(GUID, PORT, false, 320 * MS)).isEqualTo(Verdict.MASKED);
    }

    @Test
    void theWindowSlides() {
        // 4 downs, but never more than 3 within any 1 s: no quarantine
        for (long t : new long[]{0, 400, 800, 1_201, 1_700, 2_300, 2_900}) {
            assertThat(flap(t)).as("down at %d ms", t).isEqualTo(Verdict.PASS);
        }
        assertThat(guard.isQuarantined(GUID, PORT)).isFalse();
        // a 4th down within 1 s of three others quarantines
        assertThat(flap(3_000)).isEqualTo(Verdict.PASS); // window: 2_300, 2_900, 3_000
        assertThat(guard.transition(GUID, PORT, false, 3_100 * MS)).isEqualTo(Verdict.QUARANTINED);
    }

    @Test
    void downsOnDifferentPortsAreCountedSeparately() {
        for (int port = 1; port <= 8; port++) {
            assertThat(guard.transition(GUID, port, false, port * MS)).isEqualTo(Verdict.PASS);
        }
        assertThat(guard.quarantined()).isEmpty();
    }

    /** What a release check that came too early (a reload lengthened the quarantine since) sets itself again for. */
    @Test
    void theTimeLeftBeforeAReleaseFollowsTheQuarantineTimeInForce() {
        quarantineAt(0);
        assertThat(guard.upRemainingMs(GUID, PORT, 1_000 * MS)).as("down: no release due").isEqualTo(-1);
        guard.transition(GUID, PORT, true, 10_000 * MS);
        assertThat(guard.upRemainingMs(GUID, PORT, 12_000 * MS)).isEqualTo(3_000);
        guard.retune(3, 1_000, 8_000);
        assertThat(guard.releaseIfStable(GUID, PORT, 15_000 * MS)).as("up 5 s of 8 s now").isFalse();
        assertThat(guard.upRemainingMs(GUID, PORT, 15_000 * MS)).isEqualTo(3_000);
        assertThat(guard.releaseIfStable(GUID, PORT, 18_000 * MS)).isTrue();
        assertThat(guard.upRemainingMs(GUID, PORT, 18_000 * MS)).as("released").isEqualTo(-1);
    }

    @Test
    void releasedOnlyAfterStayingUpForTheQuarantineTime() {
        quarantineAt(0);
        assertThat(guard.releaseIfStable(GUID, PORT, 10_000 * MS)).as("still down: never released").isFalse();
        assertThat(guard.transition(GUID, PORT, true, 10_000 * MS)).isEqualTo(Verdict.MASKED);
        assertThat(guard.quarantined()).singleElement().satisfies(q -> assertThat(q.stableUpSinceMillis()).isNotNull());
        assertThat(guard.releaseIfStable(GUID, PORT, 14_999 * MS)).isFalse();
        assertThat(guard.isQuarantined(GUID, PORT)).isTrue();
        assertThat(guard.releaseIfStable(GUID, PORT, 15_000 * MS)).isTrue();
        assertThat(guard.isQuarantined(GUID, PORT)).isFalse();
        assertThat(guard.quarantined()).isEmpty();
        assertThat(guard.releaseIfStable(GUID, PORT, 16_000 * MS)).as("released once").isFalse();
        // the history is cleared: threshold downs after release pass again
        assertThat(flap(20_000)).isEqualTo(Verdict.PASS);
        assertThat(flap(20_100)).isEqualTo(Verdict.PASS);
        assertThat(flap(20_200)).isEqualTo(Verdict.PASS);
        assertThat(guard.transition(GUID, PORT, false, 20_300 * MS)).isEqualTo(Verdict.QUARANTINED);
    }

    @Test
    void aDownDuringTheUpPeriodRestartsIt() {
        quarantineAt(0);
        guard.transition(GUID, PORT, true, 1_000 * MS);
        assertThat(guard.transition(GUID, PORT, false, 4_000 * MS)).isEqualTo(Verdict.MASKED);
        assertThat(guard.releaseIfStable(GUID, PORT, 6_000 * MS)).as("down again: the up period is gone").isFalse();
        assertThat(guard.quarantined()).singleElement().satisfies(q -> assertThat(q.stableUpSinceMillis()).isNull());
        guard.transition(GUID, PORT, true, 7_000 * MS);
        assertThat(guard.releaseIfStable(GUID, PORT, 11_999 * MS)).as("5 s from the new up, not the old").isFalse();
        assertThat(guard.releaseIfStable(GUID, PORT, 12_000 * MS)).isTrue();
    }

    @Test
    void zeroQuarantineReleasesAtTheFirstCheckAfterComingUp() {
        FlapGuard quick = new FlapGuard(1, 1_000, 0);
        quick.transition(GUID, PORT, false, 0);
        assertThat(quick.transition(GUID, PORT, false, 10 * MS)).isEqualTo(Verdict.QUARANTINED);
        assertThat(quick.releaseIfStable(GUID, PORT, 20 * MS)).as("still down").isFalse();
        quick.transition(GUID, PORT, true, 30 * MS);
        assertThat(quick.releaseIfStable(GUID, PORT, 30 * MS)).isTrue();
    }

    private void quarantineAt(long ms) {
        for (int i = 0; i < 3; i++) {
            guard.transition(GUID, PORT, false, (ms + i) * MS);
        }
        assertThat(guard.transition(GUID, PORT, false, (ms + 3) * MS)).isEqualTo(Verdict.QUARANTINED);
    }
}
