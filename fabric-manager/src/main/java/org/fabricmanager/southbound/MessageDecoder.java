package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.util.List;

/** Turns each frame from {@link FrameDecoder} into a {@link Message} (see {@link SouthboundCodec#decode}). */
public final class MessageDecoder extends MessageToMessageDecoder<ByteBuf> {
    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        out.add(SouthboundCodec.decode(frame));
    }
}
