package org.fabricmanager.daemon.api;

/**
 * A drain or undrain that was not done, with why. REST maps the kind to a status (400, 404, 409, 429, 503).
 */
public final class DrainException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why it was not done. */
    public enum Kind {
        /** The request is malformed. */
        BAD_REQUEST,
        /** The switch or cable is not one the daemon knows. */
        UNKNOWN,
        /** It is drained already, not drained, or draining it would cut off end nodes or leave the fabric unroutable. */
        CONFLICT,
        /** The what-if that judges a drain is busy with another request, or the fabric is being routed. */
        BUSY,
        /** Nothing is routed yet: there is nothing to judge a drain against (drain with force, or wait). */
        NOT_ROUTED
    }

    private final Kind kind;

    public DrainException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
