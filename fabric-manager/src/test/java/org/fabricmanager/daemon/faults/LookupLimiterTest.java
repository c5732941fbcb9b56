package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.daemon.testing.FakeSession;
import org.junit.jupiter.api.Test;

/** DETECTOR_LOOKUP's per-session budget: a burst, then a steady rate; beyond it lookups are dropped and counted. */
class LookupLimiterTest {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final AtomicLong nanos = new AtomicLong(1_000);
    final LookupLimiter limiter = new LookupLimiter(registry, 512, 128, nanos::get);
    final FakeSession hostile = FakeSession.of(0x11, "hostile", 8, 1);
    final FakeSession honest = FakeSession.of(0x22, "honest", 8, 1);

    double refused() {
        return registry.get(LookupLimiter.METER).counter().count();
    }

    @Test
    void anAgentThatKeepsAskingIsAnsweredOnlyAtTheBudgetsRate() {
        // a start-up burst of eight full lookups (64 members each) is answered
        for (int i = 0; i < 8; i++) {
            assertThat(limiter.admit(hostile, 64)).isTrue();
        }
        // then a flood: ten thousand lookups in one instant cost the daemon nothing more
        int admitted = 0;
        for (int i = 0; i < 10_000; i++) {
            admitted += limiter.admit(hostile, 64) ? 1 : 0;
        }
        assertThat(admitted).isZero();
        assertThat(refused()).isEqualTo(10_000);
        // one second later, 128 members' worth: two full lookups
        nanos.addAndGet(1_000_000_000L);
        assertThat(limiter.admit(hostile, 64)).isTrue();
        assertThat(limiter.admit(hostile, 64)).isTrue();
        assertThat(limiter.admit(hostile, 64)).isFalse();
        // an hour of silence refills no more than the burst
        nanos.addAndGet(3_600_000_000_000L);
        for (int i = 0; i < 8; i++) {
            assertThat(limiter.admit(hostile, 64)).isTrue();
        }
        assertThat(limiter.admit(hostile, 1)).isFalse();
    }

    @Test
    void oneSessionsFloodDoesNotSpendAnothersBudgetAndAClosedSessionsBudgetGoes() {
        while (limiter.admit(hostile, 64)) {
            // spend it all
        }
        assertThat(limiter.admit(honest, 64)).as("another session has its own budget").isTrue();
        assertThat(limiter.sessions()).isEqualTo(2);
        limiter.forget(hostile);
        limiter.forget(honest);
        assertThat(limiter.sessions()).isZero();
    }
}
