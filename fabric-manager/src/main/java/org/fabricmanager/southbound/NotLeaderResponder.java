package org.fabricmanager.southbound;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.function.Supplier;

/**
 * The session handler of a hot-standby manager's southbound listener: it answers an agent's HELLO with
 * {@code ERROR NOT_LEADER} carrying the active manager's southbound address (in its text, and as fields for agents
 * that read them) and closes; while no live
 * leader is known the HELLO is held ({@link ParkedHellos}) until one is, or answered with an empty address
 * after the longest hold. Anything else, a silence longer than the handshake timeout, or a frame the decoder refuses
 * closes the connection without an answer. The connection went through the same TLS as a manager's, so
 * only an authenticated agent learns the address, and it will authenticate the leader in turn.
 */
final class NotLeaderResponder extends SimpleChannelInboundHandler<Message> {
    private final Supplier<String> leader;
    private final ParkedHellos parked;
    private final SouthboundRejections rejections;

    /** @param leader the active manager's {@code HOST:PORT}, {@code null} while unknown (called per HELLO) */
    NotLeaderResponder(Supplier<String> leader, ParkedHellos parked, SouthboundRejections rejections) {
        this.leader = leader;
        this.parked = parked;
        this.rejections = rejections;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
        if (msg instanceof Message.Hello hello) {
            String address = leader.get();
            if (address == null) {
                parked.park(ctx.channel(), hello);
            } else {
                ParkedHellos.answer(ctx.channel(), hello, address);
            }
        } else {
            ctx.close();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof ProtocolException pe) {
            rejections.record(Rejection.PROTOCOL, ctx.channel().remoteAddress(), "before HELLO on a standby: " + pe.getMessage());
        }
        ctx.close();
    }
}
