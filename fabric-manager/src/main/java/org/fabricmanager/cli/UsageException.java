package org.fabricmanager.cli;

/**
 * Bad command-line arguments or unusable input. The CLI prints the message as one line on stderr
 * and exits with {@link ExitCodes#BAD_INPUT}; the message must name the offending option, file or entry.
 */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
