package org.fabricmanager.southbound;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.util.ArrayDeque;

/**
 * Lets at most a fixed number of TLS handshakes run at once on the daemon and admits the others in
 * the order they connected. A TLS handshake costs the daemon a few milliseconds of CPU (a key
 * exchange, one signature, two verifications); when thousands of agents reconnect at once (a daemon
 * restart), serving them all in parallel would finish every handshake late, past the handshake
 * timeout, and the retries would repeat the collapse. Served first come, first served, the early ones
 * finish at once and only the tail waits. A waiting connection is not read from; its handshake
 * timeout keeps running. One instance per server; {@link #gate()} makes the per-connection handler.
 */
final class HandshakeAdmission {
    /** Default number of TLS handshakes in progress at once. */
    static final int DEFAULT_CONCURRENT = 64;

    private final int max;
    // guarded by this
    private final ArrayDeque<Gate> waiting = new ArrayDeque<>();
    private int active;

    HandshakeAdmission(int max) {
        this.max = max;
    }

    /** The handler of one connection; place it after the TLS handler, on a channel created with autoRead off. */
    ChannelInboundHandlerAdapter gate() {
        return new Gate();
    }

    /** Handshakes in progress (for tests). */
    synchronized int active() {
        return active;
    }

    private void leave() {
        Gate next;
        synchronized (this) {
            active--;
            next = waiting.poll();
            if (next != null) {
                active++;
            }
        }
        if (next != null) {
            next.admit();
        }
    }

    private final class Gate extends ChannelInboundHandlerAdapter {
        private ChannelHandlerContext ctx;
        private boolean admitted;
        private boolean done;

        @Override
        public void channelActive(ChannelHandlerContext context) throws Exception {
            ctx = context;
            boolean now;
            synchronized (HandshakeAdmission.this) {
                now = active < max;
                if (now) {
                    active++;
                } else {
                    waiting.add(this);
                }
            }
            if (now) {
                admit();
            }
            super.channelActive(context);
        }

        /** Starts reading (and so the TLS handshake); on the channel's event loop. */
        void admit() {
            ctx.executor().execute(() -> {
                admitted = true;
                if (done || !ctx.channel().isActive()) {
                    finish();
                    return;
                }
                ctx.channel().config().setAutoRead(true);
            });
        }

        private void finish() {
            if (!done) {
                done = true;
            }
            if (admitted) {
                admitted = false;
                leave();
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext context, Object evt) throws Exception {
            if (evt instanceof SslHandshakeCompletionEvent) {
                finish();
            }
            super.userEventTriggered(context, evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext context) throws Exception {
            boolean wasWaiting;
            synchronized (HandshakeAdmission.this) {
                wasWaiting = waiting.remove(this);
            }
            if (!wasWaiting) {
                finish();
            } else {
                done = true;
            }
            super.channelInactive(context);
        }
    }
}
