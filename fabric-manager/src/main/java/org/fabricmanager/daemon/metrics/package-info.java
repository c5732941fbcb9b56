/**
 * The daemon's metrics: the registry exported on {@code /metrics} (Prometheus text through Micrometer),
 * the JVM meters bound to it, and the fault-reaction meters ({@link org.fabricmanager.daemon.metrics.DaemonMetrics})
 * that the fault handling records into.
 */
package org.fabricmanager.daemon.metrics;
