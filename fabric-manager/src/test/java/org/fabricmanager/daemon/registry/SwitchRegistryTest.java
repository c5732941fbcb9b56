package org.fabricmanager.daemon.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.daemon.testing.FakeSession;
import org.junit.jupiter.api.Test;

class SwitchRegistryTest {
    private final SwitchRegistry registry = new SwitchRegistry();

    @Test
    void aNewSwitchIsRegisteredButCountsOnlyOnceAdmitted() {
        FakeSession s = FakeSession.of(5, "s5", 4, 100);
        assertThat(registry.judge(s.hello()).kind()).isEqualTo(HelloVerdict.Kind.NEW);
        ManagedSwitch ms = registry.register(s, s.hello(), 1_000);
        assertThat(registry.current(s)).isSameAs(ms);
        assertThat(registry.admittedCount()).isZero();
        assertThat(registry.admittedPorts(5)).as("not admitted yet").isNull();
        registry.admit(ms);
        registry.admit(ms);
        assertThat(registry.admittedCount()).as("admitting twice counts once").isEqualTo(1);
        assertThat(registry.admittedCountVolatile()).isEqualTo(1);
        assertThat(registry.admittedPorts(5)).isSameAs(ms.ports());
    }

    @Test
    void takeoverNeedsARunAtLeastAsRecentInUnsignedOrder() {
        FakeSession first = FakeSession.of(7, "s7", 2, Long.MAX_VALUE);
        registry.register(first, first.hello(), 0);
        assertThat(registry.judge(FakeSession.of(7, "s7", 2, Long.MAX_VALUE).hello()).kind())
                .isEqualTo(HelloVerdict.Kind.RECONNECT);
        // 2^63 is above 2^63-1 as an unsigned incarnation
        assertThat(registry.judge(FakeSession.of(7, "s7", 2, Long.MIN_VALUE).hello()).kind())
                .isEqualTo(HelloVerdict.Kind.RESTART);
        assertThat(registry.judge(FakeSession.of(7, "s7", 2, 5).hello()).kind()).isEqualTo(HelloVerdict.Kind.OLDER);
        assertThat(registry.judge(FakeSession.of(7, "s7", 2, -1L).hello()).takesOver()).isTrue();
        assertThat(registry.judge(FakeSession.of(7, "s7", 2, 5).hello()).existing().session()).isSameAs(first);
    }

    @Test
    void aSupersededSessionNoLongerHoldsItsSwitch() {
        FakeSession old = FakeSession.of(9, "s9", 2, 1);
        registry.admit(registry.register(old, old.hello(), 0));
        FakeSession restarted = FakeSession.of(9, "s9", 2, 2);
        HelloVerdict v = registry.judge(restarted.hello());
        assertThatThrownBy(() -> registry.register(restarted, restarted.hello(), 0))
                .as("the old session must be removed first").isInstanceOf(IllegalStateException.class);
        assertThat(registry.remove(v.existing().session())).isNotNull();
        assertThat(registry.admittedCount()).isZero();
        ManagedSwitch now = registry.register(restarted, restarted.hello(), 0);
        assertThat(registry.current(old)).as("late reports of the old session are ignored").isNull();
        assertThat(registry.remove(old)).as("its late close changes nothing").isNull();
        assertThat(registry.current(restarted)).isSameAs(now);
        assertThat(registry.size()).isEqualTo(1);
    }

    @Test
    void countsFollowAnyInterleavingOfRegistrationsAdmissionsAndRemovals() {
        Random random = new Random(11);
        List<FakeSession> live = new ArrayList<>();
        int expectedAdmitted = 0;
        for (int step = 0; step < 2_000; step++) {
            int op = random.nextInt(3);
            if (op == 0 || live.isEmpty()) {
                FakeSession s = FakeSession.of(1000 + step, "s" + step, 4, 1);
                registry.register(s, s.hello(), step);
                live.add(s);
            } else if (op == 1) {
                ManagedSwitch ms = registry.current(live.get(random.nextInt(live.size())));
                if (!ms.admitted()) {
                    expectedAdmitted++;
                }
                registry.admit(ms);
            } else {
                FakeSession s = live.remove(random.nextInt(live.size()));
                if (registry.remove(s).admitted()) {
                    expectedAdmitted--;
                }
            }
            assertThat(registry.admittedCount()).as("step %d (seed 11)", step).isEqualTo(expectedAdmitted);
        }
        int[] seen = new int[1];
        registry.forEachAdmitted(p -> seen[0]++);
        assertThat(seen[0]).isEqualTo(expectedAdmitted);
        for (ManagedSwitch ms : registry.all()) {
            SwitchPorts p = registry.admittedPorts(ms.guid());
            assertThat(p != null).isEqualTo(ms.admitted());
        }
    }
}
