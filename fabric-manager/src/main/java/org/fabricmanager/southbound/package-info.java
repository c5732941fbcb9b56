/**
 * The southbound protocol between switch agents and the daemon ({@code docs/protocol.md}): message
 * records, the frame and message codecs (an encoder and a decoder per message family behind
 * {@link org.fabricmanager.southbound.SouthboundCodec}), the table hash, and the daemon's server side (listener,
 * per-connection handlers: the certificate's identity, the handshake state machine
 * {@link org.fabricmanager.southbound.SessionHandshake}, and {@link org.fabricmanager.southbound.AgentSession} with
 * its requests in one {@link org.fabricmanager.southbound.PendingRequests} table),
 * including who may speak for a switch: mutual TLS, the HELLO bound to the certificate's GUID, the
 * incarnation bound, and the accounting of refused peers ({@link org.fabricmanager.southbound.SouthboundRejections}).
 * Netty I/O threads only decode, validate and hand messages to a {@link
 * org.fabricmanager.southbound.SouthboundListener}; fabric state lives elsewhere.
 */
package org.fabricmanager.southbound;
