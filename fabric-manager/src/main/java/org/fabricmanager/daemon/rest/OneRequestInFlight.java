package org.fabricmanager.daemon.rest;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * One request in flight per connection: the channel reads only when asked (auto-read off), this
 * handler asks for the first request when the connection opens and for the next one when the last
 * part of a response has been written to the socket. Placed after a {@code FlowControlHandler}, which
 * holds the requests one socket read decoded at once and hands them over one per read. A client that
 * pipelines requests without reading the answers therefore stops being read as soon as the socket's
 * send buffer is full: the daemon buffers at most one socket read of requests and the answers the
 * kernel would not take, never a growing queue (pipelined requests are answered in order).
 */
final class OneRequestInFlight extends ChannelDuplexHandler {

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.channel().config().setAutoRead(false);
        ctx.read();
        super.channelActive(ctx);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof LastHttpContent) {
            ChannelPromise next = promise.unvoid();
            next.addListener(f -> {
                if (f.isSuccess() && ctx.channel().isActive()) {
                    ctx.read();
                }
            });
            ctx.write(msg, next);
            return;
        }
        ctx.write(msg, promise);
    }
}
