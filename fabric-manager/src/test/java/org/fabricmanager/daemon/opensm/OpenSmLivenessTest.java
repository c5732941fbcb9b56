package org.fabricmanager.daemon.opensm;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.junit.jupiter.api.Test;

/**
 * OpenSM lost and back, on a virtual clock: no keepalive for {@link OpenSmLiveness#LOST_AFTER_MS} (stopped, frozen,
 * hung with its plug-in, or never connected), or its packets outstanding with none moving that long (its state
 * manager stuck while the plug-in runs); each loss and return once, as events, the gauge and the listener's calls.
 */
class OpenSmLivenessTest {
    private final ManualControlLoop loop = new ManualControlLoop();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> events = new ArrayList<>();
    private final List<String> heard = new ArrayList<>();
    private final OpenSmLiveness liveness = new OpenSmLiveness(true, loop,
            (kind, message, details) -> events.add(kind + ": " + message), registry, () -> loop.nowMs() * 1_000_000L,
            loop::nowMs);

    private void start() {
        liveness.start(new OpenSmLiveness.Listener() {
            @Override
            public void lost(String why) {
                heard.add("lost");
            }

            @Override
            public void back(String how) {
                heard.add("back");
                // as the daemon's confirmations: events that run before OpenSM shows UP
                loop.append("confirm", () -> heard.add("confirming while " + liveness.view().state()));
            }
        });
    }

    private void keepalive(int sent, int received, int outstanding) {
        liveness.keepalive(new OpenSmWire.Keepalive(0, 0, sent, received, outstanding, 3));
        loop.runPending();
    }

    private double gauge() {
        return registry.get("fabric.opensm.lost").gauge().value();
    }

    @Test
    void aPlugInThatFallsSilentIsLostAfterTheDeadlineAndBackAtItsNextKeepalive() {
        start();
        keepalive(10, 10, 0);
        assertThat(liveness.view().state()).isEqualTo("UP");
        assertThat(events).containsExactly(Milestone.Kind.OPENSM_EVENT + ": OpenSM: its plug-in's channel is open (SM"
                + " state MASTER)");
        for (int i = 0; i < 3; i++) {
            loop.advance(OpenSmWire.KEEPALIVE_MS);
            keepalive(20 + i, 20 + i, 0);
        }
        assertThat(liveness.lostWhy()).as("keepalives on time").isNull();

        loop.advance(OpenSmLiveness.LOST_AFTER_MS - 1_000);
        assertThat(liveness.lostWhy()).as("one tick before the deadline").isNull();
        assertThat(gauge()).isZero();
        loop.advance(1_000);
        assertThat(liveness.lostWhy()).isEqualTo("no keepalive from OpenSM's plug-in for 20 s (OpenSM stopped, frozen"
                + " or hung)");
        assertThat(gauge()).isEqualTo(1);
        assertThat(heard).containsExactly("lost");
        Views.OpenSm v = liveness.view();
        assertThat(v.state()).isEqualTo("LOST");
        assertThat(v.lastKeepaliveMs()).isEqualTo(OpenSmLiveness.LOST_AFTER_MS);
        assertThat(v.losses()).isEqualTo(1);
        loop.advance(60_000);
        assertThat(heard).as("lost once, however long").containsExactly("lost");

        keepalive(30, 30, 0);
        assertThat(heard).containsExactly("lost", "back", "confirming while LOST");
        assertThat(gauge()).isZero();
        assertThat(events.get(events.size() - 1)).startsWith(Milestone.Kind.OPENSM_BACK + ": OpenSM back, 80 s after its last sign of life");
        assertThat(events).filteredOn(e -> e.startsWith(Milestone.Kind.OPENSM_LOST.name())).hasSize(1);
    }

    @Test
    void packetsOutstandingWithNoneMovingAreAStuckOpenSmThoughItsPlugInStillSpeaks() {
        start();
        keepalive(100, 90, 10);
        for (int i = 0; i < 2; i++) {
            loop.advance(OpenSmWire.KEEPALIVE_MS);
            keepalive(100 + i, 90, 10); // sent again: OpenSM's retries, not progress
        }
        assertThat(liveness.lostWhy()).as("10 s stuck").isNull();
        loop.advance(OpenSmWire.KEEPALIVE_MS);
        keepalive(102, 90, 10);
        assertThat(liveness.lostWhy()).isEqualTo("OpenSM has had 10 SMPs outstanding for 15 s with none answered (its"
                + " state manager is stuck)");
        assertThat(heard).containsExactly("lost");
        loop.advance(OpenSmWire.KEEPALIVE_MS);
        keepalive(101, 100, 0);
        assertThat(heard).as("packets moving again").containsExactly("lost", "back", "confirming while LOST");
    }

    @Test
    void packetsInFlightThatMoveAndAnIdleOpenSmAreBothAlive() {
        start();
        for (int i = 0; i < 10; i++) {
            keepalive(100 + i, 90 + i, 5); // a long sweep: always some in flight, but moving
            loop.advance(OpenSmWire.KEEPALIVE_MS);
        }
        for (int i = 0; i < 10; i++) {
            keepalive(200, 200, 0); // nothing to sweep: nothing moves, nothing waits
            loop.advance(OpenSmWire.KEEPALIVE_MS);
        }
        assertThat(heard).isEmpty();
        assertThat(liveness.view().state()).isEqualTo("UP");
    }

    @Test
    void aPlugInThatNeverConnectsIsLostAfterTheDeadlineFromTheStart() {
        start();
        assertThat(liveness.view().state()).isEqualTo("WAITING");
        assertThat(gauge()).as("waiting is not lost yet").isZero();
        loop.advance(OpenSmLiveness.LOST_AFTER_MS);
        assertThat(liveness.lostWhy()).startsWith("OpenSM's plug-in has not connected in the 20 s since the daemon"
                + " started");
        assertThat(heard).containsExactly("lost");
        keepalive(1, 1, 0);
        assertThat(heard).containsExactly("lost", "back", "confirming while LOST");
    }

    @Test
    void withoutOpenSmItOnlyExportsItsGaugeAtZero() {
        OpenSmLiveness off = new OpenSmLiveness(false, loop, (k, m, d) -> events.add(m), new SimpleMeterRegistry(),
                () -> loop.nowMs() * 1_000_000L, loop::nowMs);
        off.start(null);
        loop.advance(10 * OpenSmLiveness.LOST_AFTER_MS);
        assertThat(off.view()).isNull();
        assertThat(off.lostWhy()).isNull();
        assertThat(events).isEmpty();
    }
}
