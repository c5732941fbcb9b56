package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits the byte stream into frames: reads the 4-byte length, rejects a length above the receive
 * limit as soon as it is read (without buffering the frame) and a length below the 5-byte header,
 * and emits each frame's type, txid and payload as one buffer. After a violation the stream cannot be
 * re-synchronised, so every later byte is discarded until the session closes.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private final int maxFrame;
    private boolean failed;

    /** @param maxFrame the largest {@code length} accepted */
    public FrameDecoder(int maxFrame) {
        if (maxFrame < Protocol.MIN_MAX_FRAME || maxFrame > Protocol.MAX_MAX_FRAME) {
            throw new IllegalArgumentException("max frame " + maxFrame + " outside [" + Protocol.MIN_MAX_FRAME + ", "
                    + Protocol.MAX_MAX_FRAME + "]");
        }
        this.maxFrame = maxFrame;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= Protocol.LENGTH_FIELD_BYTES) {
            int start = in.readerIndex();
            long length = in.getUnsignedInt(start);
            if (length > maxFrame) {
                failed = true;
                int type = in.readableBytes() > 4 ? in.getUnsignedByte(start + 4) : 0;
                int txid = in.readableBytes() >= 9 ? in.getInt(start + 5) : 0;
                in.skipBytes(in.readableBytes());
                throw new ProtocolException(ErrorCode.FRAME_TOO_LARGE, type, txid,
                        "frame of " + length + " bytes exceeds the limit of " + maxFrame);
            }
            if (length < Protocol.HEADER_BYTES) {
                failed = true;
                in.skipBytes(in.readableBytes());
                throw new ProtocolException(ErrorCode.MALFORMED, "frame length " + length
                        + " is shorter than the 5-byte header");
            }
            if (in.readableBytes() < Protocol.LENGTH_FIELD_BYTES + length) {
                return;
            }
            in.skipBytes(Protocol.LENGTH_FIELD_BYTES);
            out.add(in.readRetainedSlice((int) length));
        }
    }

    /** A connection that ends inside a frame is reported as a truncated frame. */
    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        decode(ctx, in, out);
        if (!failed && in.isReadable()) {
            int have = in.readableBytes();
            String expected = have >= Protocol.LENGTH_FIELD_BYTES
                    ? " of " + (Protocol.LENGTH_FIELD_BYTES + in.getUnsignedInt(in.readerIndex())) : "";
            in.skipBytes(have);
            failed = true;
            throw new ProtocolException(ErrorCode.MALFORMED, "connection closed inside a frame (truncated frame: "
                    + have + expected + " bytes received)");
        }
    }
}
