package org.fabricmanager.southbound;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.fabricmanager.southbound.CertificateIdentityHandler.CertificateIdentity;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.EchoReply;
import org.fabricmanager.southbound.Message.EchoRequest;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.fabricmanager.southbound.PendingRequests.Kind;
import org.fabricmanager.southbound.PendingRequests.Request;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's end of one agent connection: the last handler of the pipeline, after the
 * {@link CertificateIdentityHandler} (secure daemons) and the {@link SessionHandshake}, which runs the handshake as
 * an explicit {@link State} machine and hands this handler the messages of the active session. It checks the rules
 * that need the session's context, answers echoes, sends the daemon's requests and tracks them by transaction id in
 * {@link PendingRequests}: {@link #sendBatch} returns a future completed by the commit's ACK and failed by an ERROR,
 * a timeout or the session closing. Any error ends the session with an ERROR, logged by {@link SessionCloseLog}.
 *
 * <p>On a daemon that requires TLS, the session learns its peer's switch GUID from the certificate
 * once the TLS handshake completes, and admits only a HELLO naming that GUID ({@code IDENTITY_MISMATCH}
 * otherwise), so that taking over a switch's session needs that switch's certificate. In every mode a
 * HELLO whose incarnation lies beyond the daemon's clock plus {@link SouthboundSettings#incarnationAheadMs}
 * is refused ({@code INCARNATION_OUT_OF_RANGE}). Both checks run before the {@link SouthboundListener} hears of it.
 *
 * <p>Inbound messages are handled on the channel's event loop; the methods the daemon calls
 * ({@link #acceptHello}, {@link #acknowledge}, {@link #reject}, {@link #sendBatch}, {@link #close})
 * may be called from any thread and hop onto the event loop.
 */
public final class AgentSession extends SimpleChannelInboundHandler<Message> implements SwitchSession {
    private static final Logger LOG = LoggerFactory.getLogger(AgentSession.class);
    private static final AtomicLong IDS = new AtomicLong();
    /** How long a fatal ERROR may wait in the send buffer before the connection is closed without it. */
    static final long CLOSE_GRACE_MS = 1_000;

    /** Handshake and life-cycle states of a session ({@code docs/protocol.md}, section 4). */
    public enum State {
        /** Connected; only HELLO is allowed. */
        AWAIT_HELLO,
        /** HELLO received; the daemon is checking the GUID; nothing is allowed. */
        HELLO_PENDING,
        /** HELLO_REPLY sent; only PORT_INFO is allowed. */
        AWAIT_PORT_INFO,
        /** Handshake complete. */
        ACTIVE,
        /** Closed; everything is ignored. */
        CLOSED
    }

    private final long id = IDS.incrementAndGet();
    private final SouthboundSettings settings;
    private final SouthboundListener listener;
    private final SessionCloseLog closeLog;
    private final SessionHandshake handshake;
    private final PendingRequests requests = new PendingRequests();
    private final DetectorRequests detector;
    private final BatchFrames batches = new BatchFrames(this::takeTxid);

    private Channel channel;
    private volatile Hello hello;
    private volatile long lastRttNanos = -1;
    private volatile SocketAddress remote;
    private int peerMaxFrame = Protocol.MIN_MAX_FRAME;
    private int nextTxid;
    private String closeReason;
    private boolean closeReported;
    /** The TLS handshake completed: an ERROR written now is encrypted (secure daemons only). */
    private boolean tlsEstablished;
    private ScheduledFuture<?> echoTimer;
    /** The switch GUID of the peer's certificate, once the TLS handshake completed (secure daemons only). */
    private volatile OptionalLong certificateGuid = OptionalLong.empty();

    public AgentSession(SouthboundSettings settings, SouthboundListener listener) {
        this(settings, listener, SouthboundRejections.unmetered());
    }

    public AgentSession(SouthboundSettings settings, SouthboundListener listener, SouthboundRejections rejections) {
        this.settings = settings;
        this.listener = listener;
        this.closeLog = new SessionCloseLog(rejections);
        this.handshake = new SessionHandshake(this, settings, listener);
        this.detector = new DetectorRequests(this, requests);
    }

    /** Adds this session's handlers to a connection's {@code pipeline}, after its codec. */
    public void install(ChannelPipeline pipeline) {
        if (settings.secure()) {
            pipeline.addLast("identity", new CertificateIdentityHandler());
        }
        pipeline.addLast("handshake", handshake).addLast("session", this);
    }

    /** The switch GUID the peer authenticated as (its certificate), empty on a plaintext daemon or before the handshake. */
    public OptionalLong certificateGuid() {
        return certificateGuid;
    }

    // ---- identity and state (any thread) ----------------------------------------------------

    @Override
    public long id() {
        return id;
    }

    @Override
    public Hello hello() {
        return hello;
    }

    @Override
    public long guid() {
        Hello h = hello;
        return h == null ? 0 : h.guid();
    }

    public State state() {
        return handshake.state();
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public long lastRttNanos() {
        return lastRttNanos;
    }

    @Override
    public String toString() {
        Hello h = hello;
        return "session #" + id + " from " + remote + (h == null ? "" : " (" + Guids.format(h.guid()) + " " + h.name() + ")");
    }

    @Override
    public int blockRunEntries() {
        return BatchFrames.runEntries(hello);
    }

    /** The largest frame the agent accepts (from its HELLO). */
    public int peerMaxFrame() {
        return peerMaxFrame;
    }

    // ---- commands from the daemon (any thread) ------------------------------------------------

    @Override
    public void acceptHello(long daemonId) {
        onLoop(() -> handshake.accept(channel, hello, daemonId));
    }

    @Override
    public void acknowledge(int txid, MessageType type) {
        onLoop(() -> {
            if (state() != State.CLOSED) {
                channel.writeAndFlush(new Message.Ack(txid, type));
            }
        });
    }

    /** Sends a fatal ERROR answering {@code about} (may be {@code null}) and closes the session; the reason is logged once. */
    @Override
    public void reject(ErrorCode code, Message about, String message) {
        int refType = about == null ? 0 : about.type().code();
        int txid = about == null ? 0 : about.txid();
        onLoop(() -> fail(new ProtocolException(code, refType, txid, message)));
    }

    /** Tells the agent the daemon is stopping (ERROR SHUTTING_DOWN) and closes the session. */
    public void shutdown() {
        onLoop(() -> fail(new ProtocolException(ErrorCode.SHUTTING_DOWN, 0, 0, "the daemon is stopping")));
    }

    /** Closes the session without an ERROR (e.g. after failed pushes). */
    @Override
    public void close(String reason) {
        onLoop(() -> {
            if (closeReason == null) {
                closeReason = reason;
            }
            channel.close();
        });
    }

    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorConfig(List<Message.DetectorConfig> chunks,
                                                                     long timeoutMs) {
        return detector.send(chunks.size(), chunks::get, Message.DetectorConfig::withTxid, "DETECTOR_CONFIG", timeoutMs);
    }

    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorWindow(Message.DetectorWindow window, long timeoutMs) {
        return detector.send(1, i -> window, Message.DetectorWindow::withTxid, "DETECTOR_WINDOW", timeoutMs);
    }

    @Override
    public void sendDetectorPeers(Message.DetectorPeers peers) {
        Channel ch = channel;
        if (ch == null) {
            return;
        }
        onLoopOf(ch, () -> {
            if (state() == State.ACTIVE) {
                channel.writeAndFlush(peers.txid() != 0 ? peers
                        : new Message.DetectorPeers(takeTxid(), peers.epoch(), peers.members()));
            }
        });
    }

    @Override
    public CompletableFuture<Long> probe(long timeoutMs) {
        CompletableFuture<Long> future = new CompletableFuture<>();
        whenActive(future, () -> {
            int txid = takeTxid();
            Request<Long> p = requests.add(Kind.PROBE, future, txid, txid,
                    requests.failing("no echo reply within " + timeoutMs + " ms"));
            channel.writeAndFlush(new EchoRequest(txid, System.nanoTime()));
            requests.expireAfter(p, channel.eventLoop(), timeoutMs);
        });
        return future;
    }

    /**
     * Sends the blocks of {@code batch} and its commit, flushing once.
     *
     * @return completed with the agent's ACK of the commit; failed with {@link AgentErrorException}
     *         when the agent refuses a block or the commit, or {@link RequestFailedException} on
     *         timeout or when the session closes
     */
    @Override
    public CompletableFuture<CommitAck> sendBatch(LftBatch batch, long timeoutMs) {
        CompletableFuture<CommitAck> future = new CompletableFuture<>();
        whenActive(future, () -> {
            BatchFrames.Encoded frames = batches.writeBatch(channel, batch, blockRunEntries(), settings.managerTerm());
            Request<CommitAck> p = requests.add(Kind.BATCH, future, frames.firstTxid(), frames.commitTxid(),
                    requests.failing("no ACK for the commit of v" + batch.version() + " within " + timeoutMs + " ms"));
            channel.writeAndFlush(frames.last());
            requests.expireAfter(p, channel.eventLoop(), timeoutMs);
        });
        return future;
    }

    @Override
    public void stage(LftBatch batch) {
        if (batch.blocks().isEmpty()) {
            return;
        }
        // nothing to complete: a refused block makes the commit refused, and a closed session loses the staging
        whenActive(new CompletableFuture<Void>(), () -> batches.writeStaged(channel, batch, blockRunEntries()));
    }

    /**
     * Runs {@code request} on the session's event loop if the session is active there; otherwise fails
     * {@code future} with a {@link RequestFailedException} saying why (not connected, or the state it is in).
     */
    private void whenActive(CompletableFuture<?> future, Runnable request) {
        Channel ch = channel;
        if (ch == null) {
            future.completeExceptionally(new RequestFailedException(this + " is not connected", false));
            return;
        }
        if (!onLoopOf(ch, () -> {
            if (state() != State.ACTIVE) {
                future.completeExceptionally(new RequestFailedException(this + " is " + state(), false));
                return;
            }
            request.run();
        })) {
            future.completeExceptionally(new RequestFailedException(this + " is closing (the daemon stops)", false));
        }
    }

    private void onLoop(Runnable r) {
        Channel ch = channel;
        if (ch == null) {
            return;
        }
        if (ch.eventLoop().inEventLoop()) {
            r.run();
        } else {
            onLoopOf(ch, r);
        }
    }

    /**
     * Hands {@code r} to the channel's event loop; false when the loop takes no more tasks: the daemon is stopping
     * and its southbound loops shut down while the control thread still ends an event (the request is then as
     * good as sent to a closed session, not an error to log with a stack trace).
     */
    static boolean onLoopOf(Channel ch, Runnable r) {
        try {
            ch.eventLoop().execute(r);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** The next request txid of this session (event loop). */
    int takeTxid() {
        nextTxid = Protocol.nextTxid(nextTxid);
        return nextTxid;
    }

    Channel channel() {
        return channel;
    }

    // ---- from the other handlers (event loop) -------------------------------------------------

    /** The handshake admitted {@code h}: the daemon checks its GUID next. */
    void helloReceived(Hello h) {
        hello = h;
        peerMaxFrame = h.maxFrame();
    }

    /** The handshake completed: the session starts its periodic echoes. */
    void activated(ChannelHandlerContext ctx) {
        echoTimer = ctx.executor().scheduleAtFixedRate(this::sendEcho, settings.echoIntervalMs(),
                settings.echoIntervalMs(), TimeUnit.MILLISECONDS);
    }

    /** Counts this connection as a refused peer (once). */
    void refused(Rejection reason, String detail) {
        closeLog.refused(channel, remote, reason, detail);
    }

    // ---- Netty callbacks (event loop) ---------------------------------------------------------

    @Override
    public void channelRegistered(ChannelHandlerContext ctx) throws Exception {
        channel = ctx.channel();
        super.channelRegistered(ctx);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        channel = ctx.channel();
        remote = channel.remoteAddress();
        LOG.debug("{}: connected", this);
        super.channelActive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
        if (msg instanceof PortInfo info) {
            SessionHandshake.checkPorts(hello, info.ports(), true, msg);
            listener.portInfoReceived(this, info);
        } else if (msg instanceof PortStatus status) {
            SessionHandshake.checkPorts(hello, status.ports(), false, msg);
            ctx.writeAndFlush(new Message.Ack(msg.txid(), MessageType.PORT_STATUS));
            listener.portStatusReceived(this, status);
        } else if (msg instanceof CommitAck ack) {
            Request<CommitAck> p = requests.find(Kind.BATCH, ack.txid());
            if (p != null && p.endsWith(ack.txid())) {
                requests.complete(p, ack);
            } else {
                LOG.debug("{}: ACK of commit txid {} matches no pending request", this, ack.txid());
            }
        } else if (msg instanceof ErrorReport error) {
            agentError(ctx, error);
        } else if (msg instanceof Message.DetectorEndpoint endpoint) {
            ctx.writeAndFlush(new Message.Ack(msg.txid(), MessageType.DETECTOR_ENDPOINT));
            listener.detectorEndpointReceived(this, endpoint);
        } else if (msg instanceof Message.DetectorLookup lookup) {
            listener.detectorLookupReceived(this, lookup);
        } else if (msg instanceof EchoRequest echo) {
            ctx.writeAndFlush(new EchoReply(echo.txid(), echo.timestamp()));
        } else if (msg instanceof EchoReply echo) {
            lastRttNanos = Math.max(0, System.nanoTime() - echo.timestamp());
            Request<Long> probe = requests.find(Kind.PROBE, echo.txid());
            if (probe != null) {
                requests.complete(probe, lastRttNanos);
            }
        } else if (msg instanceof Message.Ack ack) {
            if (!detector.acknowledged(ack)) {
                LOG.debug("{}: ignoring {}", this, msg);
            }
        } else {
            throw SessionHandshake.unexpected(msg, state());
        }
    }

    /** An ERROR from the agent: it fails the request it answers, and ends the session when fatal. */
    private void agentError(ChannelHandlerContext ctx, ErrorReport error) {
        Request<CommitAck> p = requests.find(Kind.BATCH, error.txid());
        if (p != null) {
            requests.fail(p, new AgentErrorException(error));
        }
        boolean config = detector.refused(error);
        if (error.fatal()) {
            closeReason = "agent sent " + error;
            closeLog.agentClosed(this, channel, error, state(), closeReason);
            ctx.close();
        } else if (p == null && !config) {
            LOG.debug("{}: agent sent {} for no pending request", this, error);
        }
    }

    private void sendEcho() {
        if (state() == State.ACTIVE) {
            channel.writeAndFlush(new EchoRequest(takeTxid(), System.nanoTime()));
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof CertificateIdentity identity) {
            identified(ctx, identity);
            return;
        }
        if (evt instanceof IdleStateEvent idle && idle.state() == IdleState.READER_IDLE && state() == State.ACTIVE) {
            fail(new ProtocolException(ErrorCode.IDLE_TIMEOUT, 0, 0, "nothing received for "
                    + settings.idleTimeoutMs() + " ms"));
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    /** The TLS handshake completed (or failed): a certificate naming no switch ends the session. */
    private void identified(ChannelHandlerContext ctx, CertificateIdentity identity) {
        switch (identity.outcome()) {
            case HANDSHAKE_FAILED -> {
                String cause = identity.detail();
                refused(Rejection.HANDSHAKE, cause == null ? "failed" : cause);
                if (closeReason == null) {
                    closeReason = "TLS handshake failed: " + (cause == null ? "" : cause);
                }
                // the SslHandler closes the connection
            }
            case NOT_VALID_NOW -> {
                refused(Rejection.HANDSHAKE, identity.detail());
                closeReason = "TLS: the session's certificate is not valid now";
                tlsEstablished = true;
                ctx.close();
            }
            case NO_SWITCH -> {
                certificateGuid = OptionalLong.empty();
                tlsEstablished = true; // the ERROR below travels encrypted
                refused(Rejection.NO_GUID, identity.detail());
                fail(new ProtocolException(ErrorCode.IDENTITY_MISMATCH, 0, 0, identity.detail()));
            }
            case SWITCH -> {
                certificateGuid = identity.guid();
                tlsEstablished = true;
                LOG.debug("{}: TLS {} with switch {}", this, identity.detail(), Guids.format(identity.guid().getAsLong()));
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof ProtocolException pe) {
            fail(pe);
        } else if (cause instanceof DecoderException && cause.getCause() instanceof SSLException tls) {
            // a failed TLS handshake is counted and logged (rate-limited) by identified
            if (closeReason == null) {
                closeReason = "TLS: " + CertificateIdentityHandler.rootMessage(tls);
            }
            LOG.debug("{}: {}", this, closeReason);
            ctx.close();
        } else if (cause instanceof IOException) {
            if (closeReason == null) {
                closeReason = "connection error: " + cause.getMessage();
            }
            LOG.debug("{}: {}", this, closeReason);
            ctx.close();
        } else {
            LOG.error("{}: internal error, closing", this, cause);
            fail(new ProtocolException(ErrorCode.INTERNAL, 0, 0, "internal error: " + cause));
        }
    }

    /** Sends {@code e} as ERROR (when the connection still takes it), logs the cause and closes. */
    void fail(ProtocolException e) {
        if (closeReason != null) {
            return;
        }
        closeReason = e.code() + ": " + e.getMessage();
        State state = state();
        closeLog.closing(this, channel, e.code(), state, closeReason);
        if (state == State.CLOSED) {
            return; // found while the connection was closing (a truncated last frame): nothing to send
        }
        if (settings.secure() && !tlsEstablished) {
            // no TLS session yet (e.g. the daemon stops while the connection waits for a handshake slot): an ERROR
            // written now would leave in plaintext on a connection the peer reads as TLS; close without a word
            channel.close();
            return;
        }
        if (channel.isActive()) {
            channel.writeAndFlush(e.toMessage()).addListener(ChannelFutureListener.CLOSE);
            // A peer that stopped reading (a frozen agent, a dead host: exactly the sessions a takeover or
            // the idle timeout ends) may never take the ERROR, queued behind what it did not read either.
            Channel ch = channel;
            ch.eventLoop().schedule(() -> {
                if (ch.isOpen()) {
                    LOG.debug("{}: the ERROR could not be delivered within {} ms; closing anyway", this, CLOSE_GRACE_MS);
                    ch.close();
                }
            }, CLOSE_GRACE_MS, TimeUnit.MILLISECONDS);
        } else {
            channel.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        State previous = handshake.close();
        if (echoTimer != null) {
            echoTimer.cancel(false);
        }
        requests.closeAll(this + " closed");
        String reason = closeReason != null ? closeReason : "connection closed by the agent";
        LOG.debug("{}: closed in state {}: {}", this, previous, reason);
        if (!closeReported) {
            closeReported = true;
            listener.sessionClosed(this, reason);
        }
        super.channelInactive(ctx);
    }
}
