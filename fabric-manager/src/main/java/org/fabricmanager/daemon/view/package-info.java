/**
 * The read-only views REST and the admin CLI see: immutable snapshots ({@link org.fabricmanager.daemon.api.Views},
 * {@link org.fabricmanager.daemon.api.FaultReport}) built here from the managers' state on the control thread,
 * so that the managers hold state and logic and never format answers.
 */
package org.fabricmanager.daemon.view;
