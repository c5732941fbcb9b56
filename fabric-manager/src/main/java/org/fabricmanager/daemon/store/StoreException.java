package org.fabricmanager.daemon.store;

/** A state file that cannot be read or written; the message names the file (and line). */
public final class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
