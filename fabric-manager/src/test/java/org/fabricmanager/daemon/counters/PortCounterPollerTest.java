package org.fabricmanager.daemon.counters;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.TableHash;
import org.junit.jupiter.api.Test;

/**
 * At a start the polls wait for the daemon's first convergence (the push has the cores), at most
 * {@link PortCounterPoller#HOLD_TICKS_MAX} ticks; from then on every switch is asked at the next tick and each
 * interval, whatever the daemon's state.
 */
class PortCounterPollerTest {
    private final ManualControlLoop loop = new ManualControlLoop();
    private final SwitchRegistry registry = new SwitchRegistry();
    private final List<FakeSession> sessions = new ArrayList<>();
    private final AtomicBoolean converged = new AtomicBoolean();
    private final PortCounterPoller poller = new PortCounterPoller(registry, loop,
            new PortCounterStore(new SimpleMeterRegistry()), loop::nowMs, () -> loop.nowMs() * 1_000_000L,
            converged::get);

    private void connect(long guid) {
        Hello hello = new Hello(1, 1, 1, guid, 1, 4, 65536, 0, 0, TableHash.EMPTY, "s" + guid,
                Protocol.FEATURE_PORT_COUNTERS);
        FakeSession session = new FakeSession(hello);
        sessions.add(session);
        ManagedSwitch ms = registry.register(session, hello, 0);
        registry.admit(ms);
    }

    /** The GUIDs asked so far, once per request. */
    private List<Long> asked() {
        List<Long> out = new ArrayList<>();
        for (FakeSession s : sessions) {
            s.counterRequests.forEach(r -> out.add(s.guid()));
        }
        return out;
    }

    @Test
    void pollsWaitForTheFirstConvergenceThenGoOnWhateverTheState() {
        connect(1);
        connect(2);
        poller.tick();
        loop.advance(5 * PortCounterPoller.TICK_MS);
        assertThat(asked()).as("before the first convergence").isEmpty();

        converged.set(true);
        loop.advance(PortCounterPoller.TICK_MS);
        assertThat(asked()).as("at the tick after it").containsExactlyInAnyOrder(1L, 2L);

        converged.set(false); // a later change being routed does not hold them again
        connect(3);
        loop.advance(PortCounterPoller.TICK_MS);
        assertThat(asked()).contains(3L);
    }

    @Test
    void pollsStartAfterTheLongestHoldWhenTheDaemonNeverConverges() {
        connect(1);
        poller.tick();
        loop.advance((PortCounterPoller.HOLD_TICKS_MAX - 1) * PortCounterPoller.TICK_MS);
        assertThat(asked()).isEmpty();
        loop.advance(2 * PortCounterPoller.TICK_MS);
        assertThat(asked()).as("counters tell why a fabric does not converge").containsExactly(1L);
    }
}
