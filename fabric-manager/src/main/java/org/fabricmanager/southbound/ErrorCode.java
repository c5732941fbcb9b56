package org.fabricmanager.southbound;

import java.util.Optional;

/**
 * The error codes of the protocol's ERROR message. A fatal code closes the session after it is sent;
 * a non-fatal one answers one request and leaves the session up.
 */
public enum ErrorCode {
    MALFORMED(1, true),
    UNKNOWN_TYPE(2, true),
    FRAME_TOO_LARGE(3, true),
    UNSUPPORTED_VERSION(4, true),
    UNEXPECTED_MESSAGE(5, true),
    HANDSHAKE_TIMEOUT(6, true),
    DUPLICATE_GUID(7, true),
    NEIGHBOUR_CONFLICT(8, true),
    IDLE_TIMEOUT(9, true),
    BAD_BLOCK(10, false),
    BATCH_INCOMPLETE(11, false),
    HASH_MISMATCH(12, false),
    UNSUPPORTED_FEATURE(13, false),
    SHUTTING_DOWN(14, true),
    INTERNAL(15, true),
    DETECTOR_UNAVAILABLE(16, false),
    /** The daemon closes a session because the same switch's restarted agent (higher incarnation) took it over. */
    SUPERSEDED(17, true),
    /** Protocol 2: the HELLO names another switch than the certificate the agent authenticated with. */
    IDENTITY_MISMATCH(18, true),
    /** Protocol 2: the HELLO's incarnation lies further ahead of the daemon's clock than a start time can. */
    INCARNATION_OUT_OF_RANGE(19, true),
    /**
     * An LFT_COMMIT from a manager whose Raft term is below the highest the agent has seen: a deposed
     * hot-standby manager (paused, partitioned) must never overwrite the new leader's tables.
     */
    STALE_TERM(20, false),
    /**
     * Answer of a hot-standby manager to HELLO: it does not lead. The message is the active manager's
     * southbound address {@code HOST:PORT}, or empty while no leader is known; the standby then closes.
     */
    NOT_LEADER(21, true),
    /**
     * An LFT_COMMIT that passed every check but that the switch's forwarding hardware did not take (a kernel
     * that refused the entries, a bridge that vanished): the agent keeps its previous table and the daemon retries.
     */
    APPLY_FAILED(22, false),
    /**
     * A PORT_COUNTERS_REQUEST the agent could not answer now, though it announced counters (a Linux switch whose
     * {@code ip} failed): the daemon asks again at its next poll.
     */
    COUNTERS_UNAVAILABLE(23, false);

    private final int code;
    private final boolean fatal;

    ErrorCode(int code, boolean fatal) {
        this.code = code;
        this.fatal = fatal;
    }

    public int code() {
        return code;
    }

    /** True when the sender closes the session after sending this error. */
    public boolean fatal() {
        return fatal;
    }

    /** The code of a wire value, if this version knows it (unknown codes are treated as fatal). */
    public static Optional<ErrorCode> fromCode(int code) {
        for (ErrorCode c : values()) {
            if (c.code == code) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}
