package org.fabricmanager.daemon.config;

/** A configuration file that cannot be used; the message names the file, line and option. */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
