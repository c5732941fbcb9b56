package org.fabricmanager.southbound;

import io.netty.handler.codec.DecoderException;

/**
 * A violation of the southbound protocol, with the {@link ErrorCode} to send back, the type of the
 * offending message (0 when unknown) and its transaction id (0 when unknown). It extends Netty's
 * {@link DecoderException} so that decoders can throw it without being re-wrapped.
 */
public final class ProtocolException extends DecoderException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final int refType;
    private final int txid;

    public ProtocolException(ErrorCode code, int refType, int txid, String message) {
        super(message);
        this.code = code;
        this.refType = refType;
        this.txid = txid;
    }

    public ProtocolException(ErrorCode code, String message) {
        this(code, 0, 0, message);
    }

    public ErrorCode code() {
        return code;
    }

    public int refType() {
        return refType;
    }

    public int txid() {
        return txid;
    }

    /** The ERROR message that reports this violation to the peer. */
    public Message.ErrorReport toMessage() {
        return new Message.ErrorReport(txid, code.code(), refType, getMessage());
    }
}
