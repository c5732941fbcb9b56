/**
 * Table installation: for each switch, what the daemon knows it holds, the 64-entry blocks that differ
 * from the new tables, one batch in flight ended by a commit (barrier) with a version, acknowledged
 * with the resulting hash, retried on timeout and counted, like ONOS installs flow rules.
 */
package org.fabricmanager.daemon.push;
