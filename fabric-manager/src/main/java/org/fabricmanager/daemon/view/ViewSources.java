package org.fabricmanager.daemon.view;

import org.fabricmanager.daemon.discovery.DiscoveryManager;
import org.fabricmanager.daemon.faults.Drains;
import org.fabricmanager.daemon.faults.FaultManager;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.routing.RoutingManager;

/**
 * The managers whose state {@link DaemonViews} reads to answer the daemon's queries (read only, on the control
 * thread).
 */
public record ViewSources(SwitchRegistry registry, DiscoveryManager discovery, RoutingManager routing,
                          LftPusher pusher, FaultManager faults, Drains drains) {
}
