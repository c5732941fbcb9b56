/**
 * The Linux switch agent: the agent library's {@code SwitchAgent} applying its tables to a Linux bridge's static
 * forwarding database (one entry per destination MAC), its ports' state read from the kernel's links, and its
 * neighbours from a cabling file. Every kernel change goes through iproute2 ({@code ip}, {@code bridge}) in the
 * switch's network namespace, batched. See {@code docs/linux-agent.md}.
 */
package org.fabricmanager.agent.linux;
