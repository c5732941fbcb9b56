/**
 * Fault reaction: {@link org.fabricmanager.daemon.faults.FaultManager} is what the control loop calls, and hands each
 * call to its part. {@link org.fabricmanager.daemon.faults.RingPlanner} plans the failure-detector ring
 * ({@link org.fabricmanager.daemon.faults.RingSlots}, {@link org.fabricmanager.daemon.faults.RingOrder},
 * {@link org.fabricmanager.daemon.faults.RingCoordinator}),
 * {@link org.fabricmanager.daemon.faults.DetectorConfigurator} configures the agents' members,
 * {@link org.fabricmanager.daemon.faults.VerdictJudge} judges the daemon member's suspicions and verdicts
 * ({@link org.fabricmanager.daemon.faults.EarlyEchoes}, {@link org.fabricmanager.daemon.faults.SecondOpinion}) and
 * {@link org.fabricmanager.daemon.faults.FailedSwitches} acts on the confirmed ones,
 * {@link org.fabricmanager.daemon.faults.QuarantineKeeper} applies flap quarantine
 * ({@link org.fabricmanager.daemon.faults.FlapGuard}) and keeps it in its store, and
 * {@link org.fabricmanager.daemon.faults.ReactionTracker} keeps the figures of each reaction. It reaches the control
 * loop only through {@link org.fabricmanager.daemon.faults.FaultActions}; everything here runs on the control thread.
 */
package org.fabricmanager.daemon.faults;
