/**
 * Port counters: the daemon polls every agent that announces them (HELLO feature
 * {@link org.fabricmanager.southbound.Protocol#FEATURE_PORT_COUNTERS}) at a bounded rate, keeps each switch's last
 * report, and serves them to REST, the CLI, the status page and metrics.
 */
package org.fabricmanager.daemon.counters;
