package org.fabricmanager.southbound;

/** An agent answered a request with ERROR; fails the request's future. */
public final class AgentErrorException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Message.ErrorReport error;

    public AgentErrorException(Message.ErrorReport error) {
        super(error.toString());
        this.error = error;
    }

    public Message.ErrorReport error() {
        return error;
    }
}
