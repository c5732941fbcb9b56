/**
 * Discovery: what the agents report becomes a fabric. A switch-to-switch link counts only when both
 * ends are connected, up and name each other; node links come from the leaves. New nodes get
 * destination indices in topological order; the discovered fabric is checked against the expected
 * PGFT and the findings are kept for REST.
 */
package org.fabricmanager.daemon.discovery;
