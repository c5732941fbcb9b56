package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.fabricmanager.daemon.api.RebalanceResult;
import org.fabricmanager.daemon.api.WhatIfException;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.ConfigLoader;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.junit.jupiter.api.Test;

/**
 * The quiet-period policy on virtual time ({@link ManualControlLoop}): tables that are a repair and converged, then no
 * change for the quiet period, start one rebalance; a change restarts the wait, a full routing does not arm it, and the
 * option reads as a number with a unit, or off.
 */
class QuietRebalanceTest {
    private static final long QUIET_MS = 30 * 60_000;

    private final ManualControlLoop loop = new ManualControlLoop();
    private final AtomicReference<ActiveRouting> active = new AtomicReference<>();
    private final List<String> asked = new ArrayList<>();
    private final QuietRebalance policy = new QuietRebalance(loop, QUIET_MS, "30m", active::get, reason -> {
        asked.add(reason);
        return new CompletableFuture<RebalanceResult>();
    });

    private static ActiveRouting routing(long version, boolean repaired) {
        return new ActiveRouting(version, null, "fingerprint", null, "dmodc", 1.0, true, 0, false, null, null, repaired);
    }

    /** {@code r} is in force and its tables converged. */
    private void converged(ActiveRouting r) {
        active.set(r);
        policy.converged(r);
    }

    @Test
    void aRepairLeftQuietForThePeriodIsRebalancedOnce() {
        converged(routing(2, true));
        loop.advance(QUIET_MS - 1);
        assertThat(asked).isEmpty();
        loop.advance(1);
        assertThat(asked).containsExactly("quiet period of 30m");
        loop.advance(3 * QUIET_MS);
        assertThat(asked).as("one rebalance per quiet period, not one per period").hasSize(1);
    }

    @Test
    void aChangeRestartsTheWaitAtTheNextConvergence() {
        converged(routing(2, true));
        loop.advance(QUIET_MS / 2);
        policy.changed();
        loop.advance(QUIET_MS);
        assertThat(asked).as("the change cancelled the wait").isEmpty();
        converged(routing(3, true));
        loop.advance(QUIET_MS - 1);
        assertThat(asked).isEmpty();
        loop.advance(1);
        assertThat(asked).hasSize(1);
    }

    @Test
    void aFullRoutingNeitherArmsNorKeepsTheWait() {
        converged(routing(1, false));
        loop.advance(2 * QUIET_MS);
        assertThat(asked).isEmpty();
        converged(routing(2, true));
        loop.advance(QUIET_MS / 2);
        converged(routing(3, false)); // an undrain, routed in full
        loop.advance(2 * QUIET_MS);
        assertThat(asked).isEmpty();
        assertThat(loop.isScheduled(QuietRebalance.TAG)).isFalse();
    }

    @Test
    void anotherRoutingInForceWhenThePeriodEndsIsLeftToItsOwnConvergence() {
        converged(routing(2, true));
        active.set(routing(3, true)); // installed, not converged yet
        loop.advance(QUIET_MS);
        assertThat(asked).isEmpty();
    }

    @Test
    void aRefusedRebalanceIsNotAnError() {
        QuietRebalance refusing = new QuietRebalance(loop, QUIET_MS, "30m", active::get, reason -> {
            asked.add(reason);
            throw new WhatIfException(WhatIfException.Kind.BUSY, "the fabric is being routed");
        });
        ActiveRouting r = routing(2, true);
        active.set(r);
        refusing.converged(r);
        loop.advance(QUIET_MS);
        assertThat(asked).hasSize(1);
    }

    @Test
    void offNeverSchedules() {
        QuietRebalance off = new QuietRebalance(loop, 0, "off", active::get, reason -> {
            asked.add(reason);
            return new CompletableFuture<>();
        });
        ActiveRouting r = routing(2, true);
        active.set(r);
        off.converged(r);
        assertThat(loop.isScheduled(QuietRebalance.TAG)).isFalse();
        loop.advance(10 * QUIET_MS);
        assertThat(asked).isEmpty();
    }

    @Test
    void theOptionIsANumberWithAUnitOrOff() {
        assertThat(ConfigLoader.parse("", "fm.yaml").routing().rebalance().quietPeriodMs()).isZero();
        assertThat(ConfigLoader.parse("routing:\n  rebalance:\n    quietPeriod: 30m\n", "fm.yaml").routing().rebalance()
                .quietPeriodMs()).isEqualTo(QUIET_MS);
        assertThat(ConfigLoader.parse("routing:\n  rebalance:\n    quietPeriod: 90s\n", "fm.yaml").routing().rebalance()
                .quietPeriodMs()).isEqualTo(90_000);
        assertThat(ConfigLoader.parse("routing:\n  rebalance:\n    quietPeriod: off\n", "fm.yaml").routing().rebalance()
                .quietPeriodMs()).as("a bare off, which YAML reads as false").isZero();
        assertThatThrownBy(() -> ConfigLoader.parse("routing:\n  rebalance:\n    quietPeriod: 30 minutes\n", "fm.yaml"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("routing.rebalance.quietPeriod");
        assertThatThrownBy(() -> ConfigLoader.parse("routing:\n  rebalance:\n    quietPeriod: 10ms\n", "fm.yaml"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("between 1s and 168h");
    }
}
