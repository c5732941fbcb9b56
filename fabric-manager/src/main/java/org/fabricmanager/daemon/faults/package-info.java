/**
 * Fault reaction: {@link org.fabricmanager.daemon.faults.FaultManager} plans the failure-detector ring
 * ({@link org.fabricmanager.daemon.faults.RingCoordinator}, {@link org.fabricmanager.daemon.faults.RingOrder})
 * and configures the agents' members, acts on the daemon member's verdicts, applies flap quarantine
 * ({@link org.fabricmanager.daemon.faults.FlapGuard}) and keeps the figures of each reaction
 * ({@link org.fabricmanager.daemon.faults.ReactionTracker}). It reaches the control loop only through
 * {@link org.fabricmanager.daemon.faults.FaultActions}.
 */
package org.fabricmanager.daemon.faults;
