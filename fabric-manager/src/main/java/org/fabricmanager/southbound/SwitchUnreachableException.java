package org.fabricmanager.southbound;

/**
 * A table cannot reach the switch now, though its session stands: the switch is managed through OpenSM, and OpenSM is
 * lost. The switch keeps the table it holds; the daemon counts it as failing at once and tries again later.
 */
public final class SwitchUnreachableException extends Exception {
    private static final long serialVersionUID = 1L;

    public SwitchUnreachableException(String message) {
        super(message);
    }
}
