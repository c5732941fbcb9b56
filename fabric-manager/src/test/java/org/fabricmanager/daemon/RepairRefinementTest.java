package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.ConfigLoader;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.junit.jupiter.api.Test;

/**
 * The refinement of repairs on virtual time ({@link ManualControlLoop}): a repair that a refinement changes, converged
 * and left alone for the wait, is refined once; a change restarts the wait, a routing that is not such a repair does
 * not arm it, a computation under way when the wait ends is left to its own convergence, and the option reads as a
 * number with a unit, or off.
 */
class RepairRefinementTest {
    private static final long WAIT_MS = 1_000;

    private final ManualControlLoop loop = new ManualControlLoop();
    private final AtomicReference<ActiveRouting> active = new AtomicReference<>();
    private final AtomicBoolean refinable = new AtomicBoolean(true);
    private final AtomicBoolean busy = new AtomicBoolean();
    private final AtomicInteger refined = new AtomicInteger();
    private final RepairRefinement policy = new RepairRefinement(loop, WAIT_MS, active::get, refinable::get,
            busy::get, refined::incrementAndGet);

    private static ActiveRouting routing(long version) {
        return new ActiveRouting(version, null, "fingerprint", null, "dmodc-home", 1.0, true, 0, false, null, null,
                true);
    }

    private void converged(ActiveRouting r) {
        active.set(r);
        policy.converged(r);
    }

    @Test
    void aRepairLeftAloneForTheWaitIsRefinedOnce() {
        converged(routing(2));
        loop.advance(WAIT_MS - 1);
        assertThat(refined).hasValue(0);
        loop.advance(1);
        assertThat(refined).hasValue(1);
        loop.advance(10 * WAIT_MS);
        assertThat(refined).hasValue(1);
    }

    @Test
    void aChangeRestartsTheWaitAtTheNextConvergence() {
        converged(routing(2));
        loop.advance(WAIT_MS / 2);
        policy.changed();
        loop.advance(WAIT_MS);
        assertThat(refined).as("the change cancelled the wait").hasValue(0);
        converged(routing(3));
        loop.advance(WAIT_MS);
        assertThat(refined).hasValue(1);
    }

    @Test
    void tablesARefinementWouldNotChangeNeitherArmNorKeepTheWait() {
        converged(routing(2));
        refinable.set(false); // the refined repair, or a full routing, converged
        converged(routing(3));
        loop.advance(10 * WAIT_MS);
        assertThat(refined).hasValue(0);
        assertThat(loop.isScheduled(RepairRefinement.TAG)).isFalse();
    }

    @Test
    void aComputationUnderWayOrAnotherRoutingInForceWhenTheWaitEndsIsLeftToItsOwnConvergence() {
        converged(routing(2));
        busy.set(true);
        loop.advance(WAIT_MS);
        assertThat(refined).hasValue(0);
        busy.set(false);
        converged(routing(3));
        active.set(routing(4)); // installed, not converged yet
        loop.advance(WAIT_MS);
        assertThat(refined).hasValue(0);
    }

    @Test
    void offNeverSchedules() {
        RepairRefinement off = new RepairRefinement(loop, 0, active::get, refinable::get, busy::get,
                refined::incrementAndGet);
        ActiveRouting r = routing(2);
        active.set(r);
        off.converged(r);
        loop.advance(10 * WAIT_MS);
        assertThat(refined).hasValue(0);
        assertThat(loop.isScheduled(RepairRefinement.TAG)).isFalse();
    }

    @Test
    void theOptionIsANumberWithAUnitOrOffAndOneSecondByDefault() {
        assertThat(ConfigLoader.parse("", "fm.yaml").routing().rebalance().refineAfterMs()).isEqualTo(1_000);
        assertThat(ConfigLoader.parse("routing:\n  rebalance:\n    refineAfter: 250ms\n", "fm.yaml").routing()
                .rebalance().refineAfterMs()).isEqualTo(250);
        assertThat(ConfigLoader.parse("routing:\n  rebalance:\n    refineAfter: off\n", "fm.yaml").routing()
                .rebalance().refineAfterMs()).isZero();
        assertThatThrownBy(() -> ConfigLoader.parse("routing:\n  rebalance:\n    refineAfter: 10ms\n", "fm.yaml"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("routing.rebalance.refineAfter");
        assertThatThrownBy(() -> ConfigLoader.parse("routing:\n  rebalance:\n    refineAfter: soon\n", "fm.yaml"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("routing.rebalance.refineAfter");
    }
}
