package org.fabricmanager.daemon.api;

/**
 * A what-if that cannot run, with why: the request names what the fabric does not have, another what-if
 * is running, nothing is routed yet, or the engine refuses the degraded fabric. REST maps the kind to a
 * status (400, 429, 503, 409).
 */
public final class WhatIfException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why the what-if did not run. */
    public enum Kind {
        /** The request is malformed or names a switch, port or link the fabric in force does not have. */
        BAD_REQUEST,
        /** Another what-if is running (one at a time). */
        BUSY,
        /** The fabric has not been routed yet: there are no tables to compare with. */
        NOT_ROUTED,
        /** The engine cannot route the degraded fabric at all. */
        REFUSED
    }

    private final Kind kind;

    public WhatIfException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
