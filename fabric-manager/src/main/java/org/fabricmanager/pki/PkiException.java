package org.fabricmanager.pki;

/** Certificate or key material that cannot be read, written or used; the message names the file. */
public final class PkiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PkiException(String message) {
        super(message);
    }

    public PkiException(String message, Throwable cause) {
        super(message, cause);
    }
}
