package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * The first handler of a connection to a daemon that requires TLS. It looks at the first bytes: a TLS
 * record puts the server's {@link SslHandler} in its place (which then sees those bytes); anything else
 * is a peer without TLS, counted as {@link Rejection#PLAINTEXT}. When those bytes are a protocol HELLO
 * (an agent of protocol 1, or one not configured for TLS) the peer gets a plaintext
 * {@code ERROR UNSUPPORTED_VERSION} saying why before the connection is closed, since it could not read
 * an encrypted one.
 *
 * <p>A TLS record's header is not handed to TLS at once: the guard stops reading, keeps the bytes read so far (one
 * socket read at most), and tells {@link HandshakeAdmission} with {@link #TLS_RECORD}; the admission calls
 * {@link #startTls()} when the connection's turn comes. A connection that sends nothing therefore never takes a
 * handshake slot.
 */
final class TransportGuard extends ByteToMessageDecoder {
    /** Bytes needed to tell a TLS record header from a frame: both are decided by their first 5 bytes. */
    private static final int PROBE_BYTES = 5;
    /** Offset of HELLO's magic in a frame: length (4), type (1), txid (4). */
    private static final int HELLO_MAGIC_OFFSET = 9;

    private final SslContext context;
    private final long handshakeTimeoutMs;
    private final SouthboundRejections rejections;
    private final Executor handshakeWork;
    /** The user event fired once the first bytes are a TLS record: the connection may wait for a handshake slot. */
    static final Object TLS_RECORD = new Object() {
        @Override
        public String toString() {
            return "TLS_RECORD";
        }
    };
    private ChannelHandlerContext self;
    /** A TLS record's header was seen: the bytes wait here for {@link #startTls()}. */
    private boolean tlsSeen;

    /** @param handshakeWork runs the TLS engine's expensive handshake steps (signatures, key exchange) */
    TransportGuard(SslContext context, long handshakeTimeoutMs, SouthboundRejections rejections, Executor handshakeWork) {
        this.context = context;
        this.handshakeTimeoutMs = handshakeTimeoutMs;
        this.rejections = rejections;
        this.handshakeWork = handshakeWork;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        self = ctx;
    }

    /** Hands the connection to TLS, with the bytes read so far (on the event loop, once admitted). */
    void startTls() {
        if (!tlsSeen || self.isRemoved()) {
            return;
        }
        // the handshake's CPU-heavy steps run off the I/O thread, so that the sessions sharing it keep being
        // read and answered (echoes, PORT_INFO, acks) while a whole fabric's handshakes are worked through
        SslHandler tls = context.newHandler(self.alloc(), handshakeWork);
        // a backstop: HandshakeAdmission's timer, started at admission just before these bytes were read,
        // fires first and counts the timeout
        tls.setHandshakeTimeoutMillis(handshakeTimeoutMs);
        // the bytes read so far are handed on to the SslHandler as this decoder leaves the pipeline
        self.pipeline().replace(this, "tls", tls);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (tlsSeen || in.readableBytes() < PROBE_BYTES) {
            return; // a TLS connection's bytes wait for its admission
        }
        if (SslHandler.isEncrypted(in)) {
            tlsSeen = true;
            ctx.channel().config().setAutoRead(false);
            ctx.fireUserEventTriggered(TLS_RECORD);
            return;
        }
        int start = in.readerIndex();
        boolean helloType = in.getUnsignedByte(start + 4) == MessageType.HELLO.code();
        if (helloType && in.readableBytes() < HELLO_MAGIC_OFFSET + 4) {
            return; // a few more bytes tell a plaintext HELLO from other plain bytes
        }
        boolean hello = helloType && in.getInt(start + HELLO_MAGIC_OFFSET) == Protocol.MAGIC;
        in.skipBytes(in.readableBytes());
        rejections.record(ctx.channel(), Rejection.PLAINTEXT, hello
                ? "plaintext HELLO (an agent without TLS, or speaking protocol 1)" : "plain bytes instead of a TLS handshake");
        if (hello) {
            ByteBuf frame = ctx.alloc().buffer(256);
            SouthboundCodec.encode(new Message.ErrorReport(0, ErrorCode.UNSUPPORTED_VERSION.code(), MessageType.HELLO.code(),
                    "this daemon speaks protocol " + Protocol.MIN_VERSION + ".." + Protocol.MAX_VERSION + " over TLS only "
                            + "(mutual TLS with a certificate naming the switch's GUID, docs/security.md); this agent "
                            + "sent a plaintext HELLO"), frame);
            ctx.writeAndFlush(frame).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }
}
