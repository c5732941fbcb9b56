/**
 * The fabric simulator: one {@link org.fabricmanager.agent.SwitchAgent} per switch of a generated or
 * loaded fabric, all in one JVM on a few shared event loops, with the cabling modelled (a port is up when
 * its cable is up and both ends are powered), fault injection (power and agent kills, link cuts, delayed
 * or dropped messages, frozen agents), a ring failure-detector member per agent, and the demo's REST
 * endpoints that drive it ({@code /api/v1/sim/...}), which under {@code demo --opensm} type the same faults at
 * ibsim's console instead ({@link org.fabricmanager.sim.IbsimFaults}). The {@code demo} and {@code simulate} commands
 * and the tests wire it in; the daemon knows nothing of it.
 */
package org.fabricmanager.sim;
