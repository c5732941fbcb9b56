/**
 * Deterministic discrete-event simulation of a ring: a virtual clock, a priority queue of events, a
 * seeded random generator for message delays in [τmin, τ], optional message loss and late timers, and
 * crashes, pauses and restarts of members. {@link org.fabricmanager.detector.sim.FailureExperiment}
 * measures detection and stabilisation against the paper's bound; the {@code detector-sim} command
 * prints its results.
 */
package org.fabricmanager.detector.sim;
