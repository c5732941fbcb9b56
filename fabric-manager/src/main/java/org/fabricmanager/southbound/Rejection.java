package org.fabricmanager.southbound;

import java.util.Locale;

/**
 * Why the southbound refused a peer before it became a switch's session; the lower-case, dashed name
 * is the {@code reason} tag of the {@value SouthboundRejections#METER} counter.
 */
public enum Rejection {
    /** Plain bytes where a TLS handshake was required (an agent without TLS, or a protocol-1 agent). */
    PLAINTEXT,
    /** The TLS handshake failed: no certificate, one not signed by the fabric CA, expired, wrong key usage. */
    HANDSHAKE,
    /** A valid certificate that names no switch ({@code urn:fabric:guid:0x...}). */
    NO_GUID,
    /** A HELLO naming another GUID than the peer's certificate. */
    IDENTITY,
    /** A HELLO whose incarnation lies beyond the daemon's clock plus the allowed skew. */
    INCARNATION,
    /** A HELLO with no protocol version in common (e.g. a protocol-1 agent on a plaintext daemon). */
    VERSION,
    /**
     * A TLS handshake not complete within its timeout from its admission, or no HELLO/PORT_INFO within the
     * handshake timeout from the TLS handshake's completion (from the connect on a plaintext daemon).
     */
    TIMEOUT,
    /**
     * The daemon's queue of connections waiting for a TLS handshake slot was full, or the connection waited
     * longer than allowed for its slot: closed unread, before any TLS byte was sent (a reconnect storm).
     */
    BUSY,
    /**
     * A HELLO for a switch whose session is held by a run with a higher incarnation ({@code ERROR DUPLICATE_GUID}):
     * an old agent still running, or whoever holds the switch's key; counted, not a WARN per attempt.
     */
    DUPLICATE_GUID,
    /** Anything else wrong before a HELLO was accepted: another message first, a malformed frame, an ERROR. */
    PROTOCOL;

    /** The metric tag value, e.g. {@code no-guid}. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
