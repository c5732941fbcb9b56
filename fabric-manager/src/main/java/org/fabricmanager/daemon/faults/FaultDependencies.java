package org.fabricmanager.daemon.faults;

import java.util.function.LongSupplier;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.registry.SwitchRegistry;

/**
 * What the fault handling works with: the control loop it runs on and defers to, the switch registry it reads, where
 * milestones and metrics go, the narrow way back to the rest of the daemon ({@link FaultActions}), and the clock that
 * flap quarantine, ring replans and second opinions measure time by ({@code System::nanoTime} in the daemon, a manual
 * clock in tests). One record, so that {@link FaultManager} and its parts take the same collaborators without long
 * parameter lists.
 *
 * @param queue      the control loop: every part runs on it, and answers from sessions come back through it
 * @param registry   the switches, their sessions and reports
 * @param milestones where operator milestones are recorded
 * @param metrics    the daemon's meters (fault and recovery counts, the detector's counters)
 * @param actions    what the fault handling may ask of the control loop
 * @param nanoTime   the clock, in nanoseconds
 */
public record FaultDependencies(ControlLoop queue, SwitchRegistry registry, MilestoneLog milestones,
                                DaemonMetrics metrics, FaultActions actions, LongSupplier nanoTime) {
}
