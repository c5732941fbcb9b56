/**
 * Routing quality of the tables in force, measured after every routing off the control thread
 * ({@link org.fabricmanager.daemon.quality.QualityMonitor}), as {@code GET /api/v1/routing/quality} and
 * the {@code fabric.routing.*} gauges report it.
 */
package org.fabricmanager.daemon.quality;
