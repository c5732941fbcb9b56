/**
 * The OpenSM provider: OpenSM's plug-in ({@code src/main/c/opensm-plugin}) sends the subnet OpenSM discovered over a
 * Unix socket; each switch becomes a session fed into the same discovery path as the agents, and the tables the
 * daemon installs on those sessions go back to OpenSM by LID (docs/opensm.md).
 */
package org.fabricmanager.daemon.opensm;
