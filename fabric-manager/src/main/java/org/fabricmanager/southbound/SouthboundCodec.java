package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Encodes messages into frames and decodes frames into messages, checking every layout and field
 * rule of {@code docs/protocol.md}; a violation is a {@link ProtocolException} naming the field.
 * Rules that need the session's context (port count, negotiated version) are the session's job. This
 * class frames and dispatches by type; each message family has its encoder and decoder
 * ({@link HandshakeEncoder}, {@link TableEncoder}, {@link StatusEncoder}, {@link DetectorEncoder},
 * {@link CountersCodec} and the matching decoders).
 */
public final class SouthboundCodec {
    private SouthboundCodec() {
    }

    /** Writes {@code m} as one complete frame (length, type, txid, payload). */
    public static void encode(Message m, ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0);
        out.writeByte(m.type().code());
        out.writeInt(m.txid());
        switch (m.type()) {
            case HELLO, HELLO_REPLY, PORT_INFO, PORT_STATUS -> HandshakeEncoder.payload(m, out);
            case LFT_BLOCK, LFT_BLOCKS, LFT_COMMIT, VC_RULES -> TableEncoder.payload(m, out);
            case ACK, ERROR, ECHO_REQUEST, ECHO_REPLY -> StatusEncoder.payload(m, out);
            case DETECTOR_CONFIG, DETECTOR_WINDOW, DETECTOR_PEERS, DETECTOR_LOOKUP, DETECTOR_ENDPOINT ->
                    DetectorEncoder.payload(m, out);
            case PORT_COUNTERS_REQUEST, PORT_COUNTERS -> CountersCodec.payload(m, out);
        }
        out.setInt(start, out.writerIndex() - start - Protocol.LENGTH_FIELD_BYTES);
    }

    /**
     * Writes blocks {@code from} (inclusive) to {@code to} (exclusive) of {@code batch}, a run as
     * {@link LftBatch#runEnd} delimits it, as one LFT_BLOCKS frame, straight from the blocks' arrays: the
     * same bytes as encoding an {@link Message.LftBlocks} of their entries, without copying them twice.
     */
    public static void encodeRun(int txid, LftBatch batch, int from, int to, ByteBuf out) {
        TableEncoder.run(txid, batch, from, to, out);
    }

    /** The size of {@code m}'s frame in bytes, length field included. */
    public static int frameBytes(Message m) {
        ByteBuf tmp = Unpooled.buffer(128);
        try {
            encode(m, tmp);
            return tmp.readableBytes();
        } finally {
            tmp.release();
        }
    }

    // ---- decoding ------------------------------------------------------------------------------

    /**
     * Decodes one frame whose length field has been removed: type, txid and exactly the payload.
     *
     * @throws ProtocolException UNKNOWN_TYPE or MALFORMED, naming the field
     */
    public static Message decode(ByteBuf frame) {
        if (frame.readableBytes() < Protocol.HEADER_BYTES) {
            throw new ProtocolException(ErrorCode.MALFORMED, "frame of " + frame.readableBytes()
                    + " bytes is shorter than its 5-byte header");
        }
        int code = frame.readUnsignedByte();
        int txid = frame.readInt();
        MessageType type = MessageType.fromCode(code);
        if (type == null) {
            throw new ProtocolException(ErrorCode.UNKNOWN_TYPE, code, txid, "unknown message type " + MessageType.describe(code));
        }
        Message m = switch (type) {
            case HELLO -> HandshakeDecoder.hello(frame, txid);
            case HELLO_REPLY -> HandshakeDecoder.helloReply(frame, txid);
            case PORT_INFO -> new Message.PortInfo(txid, HandshakeDecoder.readPorts(frame, code, txid, true));
            case PORT_STATUS -> new Message.PortStatus(txid, HandshakeDecoder.readPorts(frame, code, txid, false));
            case LFT_BLOCK -> TableDecoder.block(frame, txid);
            case LFT_BLOCKS -> TableDecoder.blocks(frame, txid);
            case LFT_COMMIT -> TableDecoder.commit(frame, txid);
            case VC_RULES -> TableDecoder.vcRules(frame, txid);
            case ACK -> StatusDecoder.ack(frame, txid);
            case ERROR -> StatusDecoder.error(frame, txid);
            case ECHO_REQUEST -> StatusDecoder.echoRequest(frame, txid);
            case ECHO_REPLY -> StatusDecoder.echoReply(frame, txid);
            case DETECTOR_CONFIG -> DetectorDecoder.config(frame, txid);
            case DETECTOR_ENDPOINT -> DetectorDecoder.endpoint(frame, txid);
            case DETECTOR_WINDOW -> DetectorDecoder.window(frame, txid);
            case DETECTOR_PEERS -> DetectorDecoder.peers(frame, txid);
            case DETECTOR_LOOKUP -> DetectorDecoder.lookup(frame, txid);
            case PORT_COUNTERS_REQUEST -> CountersCodec.request(frame, txid);
            case PORT_COUNTERS -> CountersCodec.counters(frame, txid);
        };
        if (frame.isReadable()) {
            throw Wire.malformed(code, txid, frame.readableBytes() + " unexpected bytes after the payload");
        }
        return m;
    }
}
