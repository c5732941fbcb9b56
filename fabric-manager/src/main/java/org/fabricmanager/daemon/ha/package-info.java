/**
 * Hot-standby managers (docs/operations.md, "High availability"): daemons forming an Apache Ratis group
 * that replicates the state directory; the Raft leader runs the manager, the others stand by.
 */
package org.fabricmanager.daemon.ha;
