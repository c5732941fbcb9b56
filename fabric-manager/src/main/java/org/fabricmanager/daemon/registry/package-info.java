/**
 * The switch registry: which agent session holds each switch GUID, admission into the fabric, the
 * takeover rule between sessions of one GUID, and counts kept incrementally. Changed on the control
 * thread only; knows nothing of routing, pushes or faults.
 */
package org.fabricmanager.daemon.registry;
