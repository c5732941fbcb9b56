package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import org.fabricmanager.southbound.Message.Ack;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.EchoReply;
import org.fabricmanager.southbound.Message.EchoRequest;
import org.fabricmanager.southbound.Message.ErrorReport;

/** Decodes the status family (ACK of any request, ERROR, ECHO_REQUEST, ECHO_REPLY) for {@link SouthboundCodec}, checking every field rule. */
final class StatusDecoder {
    private StatusDecoder() {
    }

    static Message ack(ByteBuf in, int txid) {
        int t = MessageType.ACK.code();
        Wire.need(in, 1, "ackedType", t, txid);
        int acked = in.readUnsignedByte();
        MessageType type = MessageType.fromCode(acked);
        if (type == MessageType.LFT_COMMIT) {
            Wire.need(in, 20, "committed table", t, txid);
            long version = in.readLong();
            long length = in.readUnsignedInt();
            long hash = in.readLong();
            if (length > Protocol.MAX_TABLE_LENGTH) {
                throw Wire.malformed(t, txid, "length " + length + " above " + Protocol.MAX_TABLE_LENGTH);
            }
            long rulesHash = 0;
            if (in.isReadable()) {
                Wire.need(in, 8, "rulesHash", t, txid);
                rulesHash = in.readLong();
            }
            return new CommitAck(txid, version, (int) length, hash, rulesHash);
        }
        if (type != MessageType.PORT_INFO && type != MessageType.PORT_STATUS && type != MessageType.DETECTOR_CONFIG
                && type != MessageType.DETECTOR_ENDPOINT && type != MessageType.DETECTOR_WINDOW) {
            throw Wire.malformed(t, txid, "ACK of " + MessageType.describe(acked) + ", which is not acknowledged");
        }
        return new Ack(txid, type);
    }

    static ErrorReport error(ByteBuf in, int txid) {
        int t = MessageType.ERROR.code();
        Wire.need(in, 3, "ERROR fields", t, txid);
        int code = in.readUnsignedShort();
        int refType = in.readUnsignedByte();
        String message = Wire.readStr16(in, Protocol.MAX_ERROR_BYTES, "message", t, txid);
        // appended, optional: a standby's redirect in NOT_LEADER (other codes end with the message)
        if (!in.isReadable() || code != ErrorCode.NOT_LEADER.code()) {
            return new ErrorReport(txid, code, refType, message);
        }
        String host = Wire.readStr8(in, Protocol.MAX_HOST_BYTES, "leaderHost", t, txid);
        Wire.need(in, 2, "leaderPort", t, txid);
        int port = in.readUnsignedShort();
        if (!ManagerAddress.validHost(host)) {
            throw Wire.malformed(t, txid, "leaderHost '" + host + "' is not a host name or an IP address");
        }
        if (port == 0) {
            throw Wire.malformed(t, txid, "leaderPort 0");
        }
        return new ErrorReport(txid, code, refType, message, InetSocketAddress.createUnresolved(host, port));
    }

    static EchoRequest echoRequest(ByteBuf in, int txid) {
        Wire.need(in, 8, "timestamp", MessageType.ECHO_REQUEST.code(), txid);
        return new EchoRequest(txid, in.readLong());
    }

    static EchoReply echoReply(ByteBuf in, int txid) {
        Wire.need(in, 8, "timestamp", MessageType.ECHO_REPLY.code(), txid);
        return new EchoReply(txid, in.readLong());
    }
}
