package org.fabricmanager.daemon;

import org.fabricmanager.daemon.config.DaemonConfig;

/**
 * What the coordinator takes of the configuration: how long a change waits before it is routed, after routing
 * ({@code routing.settleMs}) and during a fault reaction ({@code faults.settleMs}). A reload re-tunes both.
 */
record SettleWindows(int routingMs, int faultsMs) {
    static SettleWindows of(DaemonConfig config) {
        return new SettleWindows(config.routing().settleMs(), config.faults().settleMs());
    }
}
