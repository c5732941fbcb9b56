package org.fabricmanager.daemon.faults;

import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.testing.ManualControlLoop;

/** What fault managers under test work with: a manual control loop, whose virtual time is also their clock. */
final class FaultFixtures {
    private FaultFixtures() {
    }

    /** Dependencies on {@code loop}, measuring time by its virtual clock. */
    static FaultDependencies onLoop(ManualControlLoop loop, SwitchRegistry registry, MilestoneLog milestones,
                                    DaemonMetrics metrics, FaultActions actions) {
        return new FaultDependencies(loop, registry, milestones, metrics, actions, () -> loop.nowMs() * 1_000_000L);
    }
}
