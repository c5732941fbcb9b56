package org.fabricmanager.topology;

/**
 * A fabric, a PGFT notation or a topology file that cannot be accepted. The message names the
 * offending entry (GUID, port, line or field) so that an operator can fix the input.
 */
public class TopologyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TopologyException(String message) {
        super(message);
    }

    public TopologyException(String message, Throwable cause) {
        super(message, cause);
    }
}
