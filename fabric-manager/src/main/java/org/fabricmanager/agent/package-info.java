/**
 * The switch-agent library, the side of the southbound protocol that runs on a switch. A
 * {@link org.fabricmanager.agent.SwitchAgent} holds one switch's state (ports and neighbours, the applied
 * forwarding table with its version and hash) and its connection to the daemon, speaking the protocol of
 * {@code docs/protocol.md} and reconnecting with exponential backoff and jitter; it stages LFT blocks and
 * applies them only on a commit ({@link org.fabricmanager.agent.TableStager}), and hands a complete
 * failure-detector configuration ({@link org.fabricmanager.agent.RingAssignment}) to whatever runs the
 * switch's ring member. Nothing here is simulation: the simulator ({@code org.fabricmanager.sim}) builds on
 * this package, never the other way round.
 */
package org.fabricmanager.agent;
