/**
 * The southbound protocol between switch agents and the daemon ({@code docs/protocol.md}): message
 * records, the frame and message codecs, the table hash, and the daemon's server side (listener,
 * per-connection {@link org.fabricmanager.southbound.AgentSession} with its handshake state machine).
 * Netty I/O threads only decode, validate and hand messages to a {@link
 * org.fabricmanager.southbound.SouthboundListener}; fabric state lives elsewhere.
 */
package org.fabricmanager.southbound;
