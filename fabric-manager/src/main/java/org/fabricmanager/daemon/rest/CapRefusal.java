package org.fabricmanager.daemon.rest;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Answers a plaintext connection over the {@link ConnectionCap} with a 503 before closing it, so that a client learns
 * why instead of reading a reset. The answer goes out before the request is read; the request is then read and
 * dropped for a moment (at most {@link #DRAIN_BYTES}, {@link #LINGER_MS}), since closing with it unread would reset
 * the connection and could take the answer with it. Only {@link #MAX_LINGERING} refused connections linger at once
 * per listener; beyond them a refused connection is closed unanswered, so the cap still bounds the descriptors.
 */
final class CapRefusal extends ChannelInboundHandlerAdapter {
    static final int MAX_LINGERING = 16;
    static final long LINGER_MS = 1_000;
    static final int DRAIN_BYTES = 64 * 1024;

    private static final byte[] BODY = ("{\"error\":\"too many connections: at most a quarter of rest.maxConnections per "
            + "client address and rest.maxConnections in all (docs/rest-api.md); close idle ones and retry\"}\n")
            .getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ANSWER = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            + "Retry-After: 1\r\nConnection: close\r\nContent-Length: " + BODY.length + "\r\n\r\n"
            + new String(BODY, StandardCharsets.US_ASCII)).getBytes(StandardCharsets.US_ASCII);

    private final AtomicInteger lingering;
    private int drained;

    private CapRefusal(AtomicInteger lingering) {
        this.lingering = lingering;
    }

    /**
     * A refusal that answers and lingers, counted in {@code lingering}, or {@code null} when {@link #MAX_LINGERING}
     * already do (the caller closes the connection unanswered).
     */
    static CapRefusal take(AtomicInteger lingering) {
        if (lingering.incrementAndGet() > MAX_LINGERING) {
            lingering.decrementAndGet();
            return null;
        }
        return new CapRefusal(lingering);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.channel().closeFuture().addListener(f -> lingering.decrementAndGet());
        ctx.executor().schedule(() -> ctx.close(), LINGER_MS, TimeUnit.MILLISECONDS);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(ANSWER)).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                ctx.close();
            } else if (ctx.channel() instanceof SocketChannel s) {
                s.shutdownOutput();
            }
        });
        ctx.channel().config().setAutoRead(true);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf b) {
            drained += b.readableBytes();
        }
        ReferenceCountUtil.release(msg);
        if (drained > DRAIN_BYTES) {
            ctx.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close(); // a reset from a client that gave up: nothing to report
    }
}
