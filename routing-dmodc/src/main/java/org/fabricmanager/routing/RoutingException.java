package org.fabricmanager.routing;

/** An engine refused a fabric, or was asked for by a name that does not exist; the message says why. */
public class RoutingException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RoutingException(String message) {
        super(message);
    }

    public RoutingException(String message, Throwable cause) {
        super(message, cause);
    }
}
