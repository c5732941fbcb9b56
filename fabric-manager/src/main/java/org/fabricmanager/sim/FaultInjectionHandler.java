package org.fabricmanager.sim;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.TimeUnit;

/**
 * Sits between the codec and the agent's handler and applies {@link FaultSettings}: drops or delays
 * decoded inbound messages and outbound messages before encoding, and while the agent is frozen
 * reports its closes as done without closing the socket. Delays keep the message order because every
 * message of a direction is delayed by the same amount.
 */
final class FaultInjectionHandler extends ChannelDuplexHandler {
    private final FaultSettings faults;

    FaultInjectionHandler(FaultSettings faults) {
        this.faults = faults;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (faults.dropsInbound()) {
            return;
        }
        long delay = faults.delayMs();
        if (delay > 0) {
            ctx.executor().schedule(() -> {
                if (ctx.channel().isActive()) {
                    ctx.fireChannelRead(msg);
                }
            }, delay, TimeUnit.MILLISECONDS);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (faults.dropsOutbound()) {
            promise.trySuccess();
            return;
        }
        long delay = faults.delayMs();
        if (delay > 0) {
            ctx.executor().schedule(() -> {
                ctx.writeAndFlush(msg, promise);
            }, delay, TimeUnit.MILLISECONDS);
        } else {
            ctx.write(msg, promise);
        }
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
        if (faults.frozen() && ctx.channel().isActive()) {
            faults.holdOpen(ctx.channel());
            promise.trySuccess();
            return;
        }
        super.close(ctx, promise);
    }
}
