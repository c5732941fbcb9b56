/**
 * What the daemon answers, independent of how it is built: {@link org.fabricmanager.daemon.api.DaemonApi}
 * (every query runs on the control thread and completes a future there), the immutable view records REST
 * serialises ({@link org.fabricmanager.daemon.api.Views}, {@link org.fabricmanager.daemon.api.FaultReport},
 * {@link org.fabricmanager.daemon.api.FabricCheck}), the {@link org.fabricmanager.daemon.api.DaemonState} and
 * the {@link org.fabricmanager.daemon.api.Milestone}s it records. REST and metrics depend on this package only.
 */
package org.fabricmanager.daemon.api;
