package org.fabricmanager.southbound;

/** A request got no reply: it timed out, or the session closed first. */
public final class RequestFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean timeout;

    public RequestFailedException(String message, boolean timeout) {
        super(message);
        this.timeout = timeout;
    }

    /**
     * A failure that is the same each time it is asked for (a request the peer cannot answer at all), made once and
     * reused: it carries no stack trace, which would only say where it was first made.
     */
    public static RequestFailedException standing(String message) {
        return new RequestFailedException(message);
    }

    private RequestFailedException(String message) {
        super(message, null, false, false);
        this.timeout = false;
    }

    /** True for a timeout, false for a closed session. */
    public boolean timeout() {
        return timeout;
    }
}
