/**
 * Discovery: what the agents report becomes a fabric. {@link org.fabricmanager.daemon.discovery.DiscoveryManager}
 * debounces the reports until the fabric settles (or the expected PGFT is complete, counted report by report),
 * builds the fabric once per change with {@link org.fabricmanager.daemon.discovery.TopologyBuilder} (a
 * switch-to-switch link counts only when both ends are connected, up and name each other; node links come from
 * the leaves), gives new nodes destination indices in topological order, and checks the fabric against the
 * expected PGFT.
 */
package org.fabricmanager.daemon.discovery;
