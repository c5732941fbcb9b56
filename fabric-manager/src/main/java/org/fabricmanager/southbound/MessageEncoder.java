package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/** Writes each outgoing {@link Message} as one frame. Stateless, so one instance serves every channel. */
@ChannelHandler.Sharable
public final class MessageEncoder extends MessageToByteEncoder<Message> {
    /** The shared instance. */
    public static final MessageEncoder INSTANCE = new MessageEncoder();

    private MessageEncoder() {
        super(Message.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Message msg, ByteBuf out) {
        SouthboundCodec.encode(msg, out);
    }
}
