package org.fabricmanager.southbound;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.southbound.AgentSession.State;
import org.fabricmanager.southbound.CertificateIdentityHandler.CertificateIdentity;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.HelloReply;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline handler that runs an agent's handshake as the explicit {@link State} machine of
 * {@code docs/protocol.md} section 4: on a secure daemon the certificate's identity first (a certificate naming no
 * switch ends the session), then HELLO (checked: a common version, the certificate's GUID on a secure daemon,
 * an incarnation a real agent can have sent), the daemon's GUID check, HELLO_REPLY, PORT_INFO; an unexpected
 * message is a {@link ProtocolException} the session turns into an ERROR. Bounded by the handshake timer, from the
 * connect on a plaintext daemon and from the TLS handshake's completion on a secure one. Once the session is
 * active it hands every message on to the {@link AgentSession} after it. Confined to the channel's event loop but
 * for {@link #state}, which any thread may read.
 */
final class SessionHandshake extends ChannelInboundHandlerAdapter {
    /** The session's lines keep the logger operators configure for sessions. */
    private static final Logger LOG = LoggerFactory.getLogger(AgentSession.class);
    private final AgentSession session;
    private final SouthboundSettings settings;
    private final SouthboundListener listener;
    private volatile State state = State.AWAIT_HELLO;
    private ScheduledFuture<?> timer;
    /** The switch GUID of the peer's certificate, once the TLS handshake completed (secure daemons only). */
    private volatile OptionalLong certificateGuid = OptionalLong.empty();

    SessionHandshake(AgentSession session, SouthboundSettings settings, SouthboundListener listener) {
        this.session = session;
        this.settings = settings;
        this.listener = listener;
    }

    State state() {
        return state;
    }

    OptionalLong certificateGuid() {
        return certificateGuid;
    }

    /** The session closed: everything after is ignored. Returns the state it was in. */
    State close() {
        State previous = state;
        state = State.CLOSED;
        if (timer != null) {
            timer.cancel(false);
        }
        return previous;
    }

    /** The daemon's GUID check passed (event loop): sends HELLO_REPLY and waits for PORT_INFO. */
    void accept(Channel channel, Hello hello, long daemonId) {
        if (state != State.HELLO_PENDING) {
            return;
        }
        state = State.AWAIT_PORT_INFO;
        channel.writeAndFlush(new HelloReply(hello.txid(), negotiatedVersion(hello), daemonId,
                settings.maxFrameBytes(), settings.echoIntervalMs(), settings.managerTerm()));
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (!settings.secure()) {
            startTimer(ctx);
        } // else from the TLS handshake's completion: the wait for a handshake slot and the handshake itself are
          // bounded by HandshakeAdmission, and must not eat into the agent's time to say HELLO
        super.channelActive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof CertificateIdentity identity) {
            identified(ctx, identity);
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    /** The TLS handshake completed (or failed): a certificate naming no switch ends the session. */
    private void identified(ChannelHandlerContext ctx, CertificateIdentity identity) {
        SessionClosing closing = session.closing();
        switch (identity.outcome()) {
            case HANDSHAKE_FAILED -> {
                String cause = identity.detail();
                closing.refused(Rejection.HANDSHAKE, cause == null ? "failed" : cause);
                closing.because("TLS handshake failed: " + (cause == null ? "" : cause));
                // the SslHandler closes the connection
            }
            case NOT_VALID_NOW -> {
                closing.refused(Rejection.HANDSHAKE, identity.detail());
                closing.setReason("TLS: the session's certificate is not valid now");
                closing.tlsEstablished();
                ctx.close();
            }
            case NOT_A_SWITCH_CERTIFICATE -> {
                certificateGuid = OptionalLong.empty();
                closing.tlsEstablished(); // the ERROR below travels encrypted
                closing.refused(Rejection.HANDSHAKE, identity.detail()); // wrong key usage, as TLS would call it
                closing.fail(new ProtocolException(ErrorCode.IDENTITY_MISMATCH, 0, 0, identity.detail()));
            }
            case NO_SWITCH -> {
                certificateGuid = OptionalLong.empty();
                closing.tlsEstablished(); // the ERROR below travels encrypted
                closing.refused(Rejection.NO_GUID, identity.detail());
                closing.fail(new ProtocolException(ErrorCode.IDENTITY_MISMATCH, 0, 0, identity.detail()));
            }
            case SWITCH -> {
                certificateGuid = identity.guid();
                closing.tlsEstablished();
                LOG.debug("{}: TLS {} with switch {}", session, identity.detail(), Guids.format(identity.guid().getAsLong()));
                if (state == State.AWAIT_HELLO) {
                    startTimer(ctx);
                }
            }
        }
    }

    /** Bounds HELLO .. PORT_INFO. */
    private void startTimer(ChannelHandlerContext ctx) {
        timer = ctx.executor().schedule(() -> {
            if (state != State.ACTIVE && state != State.CLOSED) {
                session.closing().fail(new ProtocolException(ErrorCode.HANDSHAKE_TIMEOUT, 0, 0, "handshake not complete "
                        + settings.handshakeTimeoutMs() + " ms after " + (settings.secure() ? "the TLS handshake" : "connecting")
                        + " (state " + state + ")"));
            }
        }, settings.handshakeTimeoutMs(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        switch (state) {
            case AWAIT_HELLO -> {
                if (!(msg instanceof Hello h)) {
                    throw unexpected((Message) msg, state);
                }
                admit(h);
                session.helloReceived(h);
                state = State.HELLO_PENDING;
                listener.helloReceived(session, h);
            }
            case HELLO_PENDING -> throw unexpected((Message) msg, state);
            case AWAIT_PORT_INFO -> {
                if (!(msg instanceof PortInfo info)) {
                    throw unexpected((Message) msg, state);
                }
                checkPorts(session.hello(), info.ports(), true, info);
                state = State.ACTIVE;
                if (timer != null) {
                    timer.cancel(false);
                }
                session.activated(ctx);
                listener.portInfoReceived(session, info);
            }
            case ACTIVE -> ctx.fireChannelRead(msg);
            case CLOSED -> {
                // the session is going away; late frames carry no meaning
            }
        }
    }

    /**
     * The checks a HELLO must pass before the daemon's control thread hears of it: a common version,
     * the certificate's GUID (secure daemons), an incarnation a real agent can have sent.
     */
    private void admit(Hello h) {
        if (h.maxVersion() < Protocol.MIN_VERSION || h.minVersion() > Protocol.MAX_VERSION) {
            String message = "agent speaks versions " + h.minVersion() + ".." + h.maxVersion() + ", daemon "
                    + Protocol.MIN_VERSION + ".." + Protocol.MAX_VERSION + upgradeAdvice(h.maxVersion());
            session.closing().refused(Rejection.VERSION, Guids.format(h.guid()) + ": " + message);
            throw new ProtocolException(ErrorCode.UNSUPPORTED_VERSION, h.type().code(), h.txid(), message);
        }
        if (settings.secure()) {
            OptionalLong certified = certificateGuid;
            if (certified.isEmpty() || certified.getAsLong() != h.guid()) {
                String message = "HELLO names switch " + Guids.format(h.guid()) + " but the agent's certificate "
                        + (certified.isEmpty() ? "names no switch" : "names switch " + Guids.format(certified.getAsLong()))
                        + "; a switch may only speak for the GUID of its own certificate";
                session.closing().refused(Rejection.IDENTITY, message);
                throw new ProtocolException(ErrorCode.IDENTITY_MISMATCH, h.type().code(), h.txid(), message);
            }
        }
        long limit = Protocol.incarnationLimit(System.currentTimeMillis(), settings.incarnationAheadMs());
        if (Long.compareUnsigned(h.incarnation(), limit) > 0) {
            String message = "switch " + Guids.format(h.guid()) + ": incarnation " + Long.toUnsignedString(h.incarnation())
                    + " lies beyond the daemon's clock plus " + settings.incarnationAheadMs() + " ms (at most "
                    + Long.toUnsignedString(limit) + "): an incarnation is the agent's start time in microseconds since "
                    + "1970 (docs/protocol.md, 3.1); check the switch's clock";
            session.closing().refused(Rejection.INCARNATION, message);
            throw new ProtocolException(ErrorCode.INCARNATION_OUT_OF_RANGE, h.type().code(), h.txid(), message);
        }
    }

    /** Why an agent that speaks at most {@code maxVersion} must be upgraded, or nothing when it is newer. */
    private static String upgradeAdvice(int maxVersion) {
        if (maxVersion < 2) {
            return " (protocol 2 authenticates switches with TLS certificates: upgrade the agent, docs/security.md)";
        }
        if (maxVersion < 3) {
            return " (protocol 3 changes the table hash: upgrade the agent with the daemon, docs/protocol.md)";
        }
        return "";
    }

    private static int negotiatedVersion(Hello h) {
        return Math.min(h.maxVersion(), Protocol.MAX_VERSION);
    }

    /** The port rules that need the switch's HELLO: its port count, and no port naming the switch itself. */
    static void checkPorts(Hello hello, List<PortRecord> ports, boolean snapshot, Message msg) {
        int portCount = hello.portCount();
        if (snapshot && ports.size() != portCount) {
            throw new ProtocolException(ErrorCode.MALFORMED, msg.type().code(), msg.txid(), msg.type() + " has "
                    + ports.size() + " port records but the switch has " + portCount + " ports");
        }
        for (PortRecord r : ports) {
            if (r.port() > portCount) {
                throw new ProtocolException(ErrorCode.MALFORMED, msg.type().code(), msg.txid(), msg.type() + ": port "
                        + r.port() + " above the switch's " + portCount + " ports");
            }
            if (r.peerKind() != PortRecord.PeerKind.NONE && r.peerGuid() == hello.guid()) {
                throw new ProtocolException(ErrorCode.MALFORMED, msg.type().code(), msg.txid(), msg.type() + ": port "
                        + r.port() + " names the switch itself as its neighbour");
            }
        }
    }

    static ProtocolException unexpected(Message msg, State state) {
        return new ProtocolException(ErrorCode.UNEXPECTED_MESSAGE, msg.type().code(), msg.txid(),
                msg.type() + " not allowed in state " + state);
    }
}
