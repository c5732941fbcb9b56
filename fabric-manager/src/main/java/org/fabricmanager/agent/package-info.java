/**
 * The switch-agent library and the fabric simulator. A {@link org.fabricmanager.agent.SwitchAgent}
 * holds one switch's state (ports and neighbours, the applied forwarding table with its version and
 * hash) and its connection to the daemon, speaking the protocol of {@code docs/protocol.md} and
 * reconnecting with exponential backoff and jitter. The {@link org.fabricmanager.agent.FabricSimulator}
 * runs one agent per switch of a fabric in one JVM, all sharing a few event loops, and injects faults.
 */
package org.fabricmanager.agent;
