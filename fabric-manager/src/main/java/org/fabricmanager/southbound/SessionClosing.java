package org.fabricmanager.southbound;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.fabricmanager.southbound.AgentSession.State;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one session ends: the first reason wins and is what the listener hears, a fatal ERROR goes to the agent when
 * the connection can still carry it (never in plaintext on a TLS connection), and the end is logged by one policy.
 * A peer that never said who it is (a scan, a flood, a client without a certificate) is counted once per connection
 * by {@link SouthboundRejections}, which logs a rate-limited summary, and gets a debug line: one WARN per connection
 * would let it fill the log (issue 12). An identified switch's session that ends on an error is a WARN; ends the
 * daemon decided itself (it stops, a restarted agent took over) are logged where it decided them, so here at debug.
 * Confined to the session's event loop.
 */
final class SessionClosing {
    /** The session's lines keep the logger operators configure for sessions. */
    private static final Logger LOG = LoggerFactory.getLogger(AgentSession.class);
    /** How long a fatal ERROR may wait in the send buffer before the connection is closed without it. */
    static final long CLOSE_GRACE_MS = 1_000;

    private final AgentSession session;
    private final SouthboundRejections rejections;
    private final boolean secure;
    /** Why the session ends, once known. */
    private String reason;
    /** This connection was counted as a refused peer already. */
    private boolean rejected;
    /** The TLS handshake completed: an ERROR written now is encrypted (secure daemons only). */
    private boolean tlsEstablished;

    SessionClosing(AgentSession session, SouthboundRejections rejections, boolean secure) {
        this.session = session;
        this.rejections = rejections;
        this.secure = secure;
    }

    /** Why the session ends, {@code null} while nothing ends it. */
    String reason() {
        return reason;
    }

    /** Records why the session ends, unless a reason is known already. */
    void because(String why) {
        if (reason == null) {
            reason = why;
        }
    }

    /** Records why the session ends, over any reason known. */
    void setReason(String why) {
        reason = why;
    }

    /** The TLS handshake completed: an ERROR now travels encrypted. */
    void tlsEstablished() {
        tlsEstablished = true;
    }

    /** Counts a refused peer (logged rate-limited by {@link SouthboundRejections}), once per connection. */
    void refused(Rejection why, String detail) {
        rejected = true;
        Channel channel = session.channel();
        if (channel != null) {
            rejections.record(channel, why, detail);
        } else {
            rejections.record(why, session.remoteAddress(), detail);
        }
    }

    /** Sends {@code e} as ERROR (when the connection still takes it), logs the cause and closes. */
    void fail(ProtocolException e) {
        if (reason != null) {
            return;
        }
        reason = e.code() + ": " + e.getMessage();
        State state = session.state();
        if (e.code() == ErrorCode.SHUTTING_DOWN || e.code() == ErrorCode.SUPERSEDED) {
            // the daemon's own doing, logged where it decided it (a takeover is a milestone)
            LOG.debug("{}: closed: {}", session, reason);
        } else if (e.code() == ErrorCode.DUPLICATE_GUID) {
            // repeated as fast as a peer reconnects: counted and logged rate-limited, like an unidentified peer
            refused(Rejection.DUPLICATE_GUID, reason);
            LOG.debug("{}: closed: {}", session, reason);
        } else if (state == State.AWAIT_HELLO) {
            if (!rejected) {
                refused(e.code() == ErrorCode.HANDSHAKE_TIMEOUT ? Rejection.TIMEOUT : Rejection.PROTOCOL, reason);
            }
            LOG.debug("{}: closed: {}", session, reason);
        } else {
            LOG.warn("{}: closed: {}", session, reason);
        }
        if (state == State.CLOSED) {
            return; // found while the connection was closing (a truncated last frame): nothing to send
        }
        Channel channel = session.channel();
        if (secure && !tlsEstablished) {
            // no TLS session yet (e.g. the daemon stops while the connection waits for a handshake slot): an ERROR
            // written now would leave in plaintext on a connection the peer reads as TLS; close without a word
            channel.close();
            return;
        }
        if (channel.isActive()) {
            channel.writeAndFlush(e.toMessage()).addListener(ChannelFutureListener.CLOSE);
            // A peer that stopped reading (a frozen agent, a dead host: exactly the sessions a takeover or
            // the idle timeout ends) may never take the ERROR, queued behind what it did not read either.
            channel.eventLoop().schedule(() -> {
                if (channel.isOpen()) {
                    LOG.debug("{}: the ERROR could not be delivered within {} ms; closing anyway", session, CLOSE_GRACE_MS);
                    channel.close();
                }
            }, CLOSE_GRACE_MS, TimeUnit.MILLISECONDS);
        } else {
            channel.close();
        }
    }

    /** The agent sent a fatal {@code error}: the session closes. */
    void agentClosed(ChannelHandlerContext ctx, ErrorReport error) {
        setReason("agent sent " + error);
        if (session.state() == State.AWAIT_HELLO) {
            refused(Rejection.PROTOCOL, reason); // unidentified: counted, logged rate-limited
            LOG.debug("{}: closed: agent sent {}", session, error);
        } else {
            LOG.warn("{}: closed: agent sent {}", session, error);
        }
        ctx.close();
    }

    /** Something in the pipeline failed: a protocol error is answered, a transport error closes. */
    void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof ProtocolException pe) {
            fail(pe);
        } else if (cause instanceof DecoderException && cause.getCause() instanceof SSLException tls) {
            // a failed TLS handshake is counted and logged (rate-limited) when the handshake reports its identity
            because("TLS: " + CertificateIdentityHandler.rootMessage(tls));
            LOG.debug("{}: {}", session, reason);
            ctx.close();
        } else if (cause instanceof IOException) {
            because("connection error: " + cause.getMessage());
            LOG.debug("{}: {}", session, reason);
            ctx.close();
        } else {
            LOG.error("{}: internal error, closing", session, cause);
            fail(new ProtocolException(ErrorCode.INTERNAL, 0, 0, "internal error: " + cause));
        }
    }
}
