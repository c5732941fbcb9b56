package org.fabricmanager.detector;

/**
 * Finds the addresses of members a process's configuration does not carry (it knows only its ring
 * window): a member about to send to, or receiving from, such a member asks for it here, and the answer
 * comes back through {@link RingDetector#learn}. The switch agents ask the daemon over their TLS
 * session (DETECTOR_LOOKUP, {@code docs/protocol.md}).
 */
@FunctionalInterface
public interface AddressResolver {
    /** A resolver for configurations that carry every address: nothing to resolve. */
    AddressResolver NONE = members -> { };

    /**
     * Asks for the addresses of {@code members} (ring indices, at most 64). Called on the member's event
     * loop: must not block.
     */
    void resolve(int[] members);
}
