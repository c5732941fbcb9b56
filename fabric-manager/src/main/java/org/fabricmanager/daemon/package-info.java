/**
 * The fabric-manager daemon. {@link org.fabricmanager.daemon.FabricManagerDaemon} wires one control loop
 * ({@code control}) and one manager per area around it: the switch registry ({@code registry}), discovery
 * ({@code discovery}), routing ({@code routing}), table push ({@code push}) and the fault reaction
 * ({@code faults}); {@link org.fabricmanager.daemon.FabricCoordinator} sequences discovery, routing and
 * push, {@link org.fabricmanager.daemon.SwitchSessions} feeds the agents' sessions in, and {@code view}
 * builds the REST answers from the managers' state. The providers are {@code rest}, {@code metrics},
 * {@code store} and {@code config}; what the daemon answers is {@code api}. Nothing here knows the
 * simulator.
 */
package org.fabricmanager.daemon;
