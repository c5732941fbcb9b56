package org.fabricmanager.southbound;

/** A request got no reply: it timed out, or the session closed first. */
public final class RequestFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean timeout;

    public RequestFailedException(String message, boolean timeout) {
        super(message);
        this.timeout = timeout;
    }

    /** True for a timeout, false for a closed session. */
    public boolean timeout() {
        return timeout;
    }
}
