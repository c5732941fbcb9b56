package org.fabricmanager.daemon.rest;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * Closes a connection that stayed silent ({@link io.netty.handler.timeout.IdleStateHandler}, no read nor write for
 * {@code rest.idleTimeoutMs}) while no request of it is being answered: an idle keep-alive connection, one that never
 * sent a request, or whose client stopped reading. A request being answered (a what-if that takes long) keeps its
 * connection whatever the time. Placed after {@link OneRequestInFlight}, so it sees each request the endpoints get.
 */
final class IdleConnections extends ChannelDuplexHandler {
    private boolean answering;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        answering = true;
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof LastHttpContent) {
            answering = false;
        }
        ctx.write(msg, promise);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent && !answering) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }
}
