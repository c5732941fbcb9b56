package org.fabricmanager.detector.netty;

/** A datagram that is not a valid message of this ring; the text says what is wrong with it. */
public final class MalformedMessageException extends Exception {
    private static final long serialVersionUID = 1L;

    public MalformedMessageException(String message) {
        super(message);
    }
}
