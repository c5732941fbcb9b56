package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import org.fabricmanager.southbound.Message.Ack;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.EchoReply;
import org.fabricmanager.southbound.Message.EchoRequest;
import org.fabricmanager.southbound.Message.ErrorReport;

/** Writes the payload of the status family (ACK, ERROR, ECHO_REQUEST, ECHO_REPLY) for {@link SouthboundCodec}. */
final class StatusEncoder {
    private StatusEncoder() {
    }

    static void payload(Message m, ByteBuf out) {
        if (m instanceof Ack a) {
            out.writeByte(a.ackedType().code());
        } else if (m instanceof CommitAck a) {
            out.writeByte(MessageType.LFT_COMMIT.code());
            out.writeLong(a.version());
            out.writeInt(a.length());
            out.writeLong(a.hash());
            if (a.rulesHash() != 0) {
                out.writeLong(a.rulesHash());
            }
        } else if (m instanceof ErrorReport e) {
            out.writeShort(e.code());
            out.writeByte(e.refType());
            Wire.writeStr16(out, e.message() == null ? "" : e.message(), Protocol.MAX_ERROR_BYTES);
            if (e.redirect() != null) {
                // appended, optional: only in NOT_LEADER to agents with FEATURE_REDIRECT_FIELDS
                Wire.writeStr8(out, e.redirect().getHostString(), Protocol.MAX_HOST_BYTES);
                out.writeShort(e.redirect().getPort());
            }
        } else if (m instanceof EchoRequest e) {
            out.writeLong(e.timestamp());
        } else if (m instanceof EchoReply e) {
            out.writeLong(e.timestamp());
        } else {
            throw new IllegalArgumentException("no status encoding for " + m);
        }
    }
}
