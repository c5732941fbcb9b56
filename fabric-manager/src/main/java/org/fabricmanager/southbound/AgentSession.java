package org.fabricmanager.southbound;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.SocketAddress;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.EchoReply;
import org.fabricmanager.southbound.Message.EchoRequest;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's end of one agent connection: the last handler of the pipeline, after the
 * {@link CertificateIdentityHandler} (secure daemons) and the {@link SessionHandshake}, which runs the handshake as
 * an explicit {@link State} machine and hands this handler the messages of the active session. It checks the rules
 * that need the session's context, answers echoes, and sends the daemon's requests, tracked by transaction id in
 * {@link SessionRequests}: {@link #sendBatch} returns a future completed by the commit's ACK and failed by an ERROR,
 * a timeout or the session closing. Any error ends the session with an ERROR, logged by {@link SessionClosing}.
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
    private final SessionClosing closing;
    private final SessionHandshake handshake;
    private final SessionRequests requests;

    private Channel channel;
    private volatile Hello hello;
    private volatile long lastRttNanos = -1;
    private volatile SocketAddress remote;
    private int peerMaxFrame = Protocol.MIN_MAX_FRAME;
    private int nextTxid;
    private boolean closeReported;
    private ScheduledFuture<?> echoTimer;

    public AgentSession(SouthboundSettings settings, SouthboundListener listener) {
        this(settings, listener, SouthboundRejections.unmetered());
    }

    public AgentSession(SouthboundSettings settings, SouthboundListener listener, SouthboundRejections rejections) {
        this.settings = settings;
        this.listener = listener;
        this.closing = new SessionClosing(this, rejections, settings.secure());
        this.handshake = new SessionHandshake(this, settings, listener);
        this.requests = new SessionRequests(this);
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
        return handshake.certificateGuid();
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
        onLoop(() -> closing.fail(new ProtocolException(code, refType, txid, message)));
    }

    /** Tells the agent the daemon is stopping (ERROR SHUTTING_DOWN) and closes the session. */
    public void shutdown() {
        onLoop(() -> closing.fail(new ProtocolException(ErrorCode.SHUTTING_DOWN, 0, 0, "the daemon is stopping")));
    }

    /** Closes the session without an ERROR (e.g. after failed pushes). */
    @Override
    public void close(String reason) {
        onLoop(() -> {
            closing.because(reason);
            channel.close();
        });
    }

    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorConfig(List<Message.DetectorConfig> chunks,
                                                                     long timeoutMs) {
        return requests.sendDetectorConfig(chunks, timeoutMs);
    }

    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorWindow(Message.DetectorWindow window, long timeoutMs) {
        return requests.sendDetectorWindow(window, timeoutMs);
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
        return requests.probe(timeoutMs);
    }

    @Override
    public CompletableFuture<PortCounters> requestCounters(long timeoutMs) {
        Hello h = hello;
        if (h == null || (h.features() & Protocol.FEATURE_PORT_COUNTERS) == 0) {
            return CompletableFuture.failedFuture(new RequestFailedException(this + " reports no port counters", false));
        }
        return requests.counters(h.portCount(), settings.maxFrameBytes(), timeoutMs);
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
        return requests.sendBatch(batch, timeoutMs, settings.managerTerm());
    }

    @Override
    public void stage(LftBatch batch) {
        if (!batch.blocks().isEmpty()) {
            requests.stage(batch);
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
            if (!requests.committed(ack)) {
                LOG.debug("{}: ACK of commit txid {} matches no pending request", this, ack.txid());
            }
        } else if (msg instanceof ErrorReport error) {
            agentError(ctx, error);
        } else if (msg instanceof Message.DetectorEndpoint endpoint) {
            ctx.writeAndFlush(new Message.Ack(msg.txid(), MessageType.DETECTOR_ENDPOINT));
            listener.detectorEndpointReceived(this, endpoint);
        } else if (msg instanceof Message.Counters counters) {
            if (counters.counters().lastPort() > hello.portCount()) {
                throw Wire.malformed(msg.type().code(), msg.txid(), "port " + counters.counters().lastPort()
                        + " above the switch's " + hello.portCount());
            }
            if (!requests.counted(counters)) {
                LOG.debug("{}: PORT_COUNTERS txid {} answers no pending request", this, msg.txid());
            }
        } else if (msg instanceof Message.DetectorLookup lookup) {
            listener.detectorLookupReceived(this, lookup);
        } else if (msg instanceof EchoRequest echo) {
            ctx.writeAndFlush(new EchoReply(echo.txid(), echo.timestamp()));
        } else if (msg instanceof EchoReply echo) {
            lastRttNanos = Math.max(0, System.nanoTime() - echo.timestamp());
            requests.echoed(echo.txid(), lastRttNanos);
        } else if (msg instanceof Message.Ack ack) {
            if (!requests.acknowledged(ack)) {
                LOG.debug("{}: ignoring {}", this, msg);
            }
        } else {
            throw SessionHandshake.unexpected(msg, state());
        }
    }

    /** An ERROR from the agent: it fails the request it answers, and ends the session when fatal. */
    private void agentError(ChannelHandlerContext ctx, ErrorReport error) {
        boolean answered = requests.refused(error);
        if (error.fatal()) {
            closing.agentClosed(ctx, error);
        } else if (!answered) {
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
        if (evt instanceof IdleStateEvent idle && idle.state() == IdleState.READER_IDLE && state() == State.ACTIVE) {
            closing.fail(new ProtocolException(ErrorCode.IDLE_TIMEOUT, 0, 0, "nothing received for "
                    + settings.idleTimeoutMs() + " ms"));
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        closing.exceptionCaught(ctx, cause);
    }

    SessionClosing closing() {
        return closing;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        State previous = handshake.close();
        if (echoTimer != null) {
            echoTimer.cancel(false);
        }
        requests.closeAll(this + " closed");
        String reason = closing.reason() != null ? closing.reason() : "connection closed by the agent";
        LOG.debug("{}: closed in state {}: {}", this, previous, reason);
        if (!closeReported) {
            closeReported = true;
            listener.sessionClosed(this, reason);
        }
        super.channelInactive(ctx);
    }
}
