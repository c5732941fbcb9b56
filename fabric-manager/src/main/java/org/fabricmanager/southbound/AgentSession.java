package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.OptionalLong;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.EchoReply;
import org.fabricmanager.southbound.Message.EchoRequest;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.HelloReply;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.Message.LftCommit;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.fabricmanager.pki.FabricIdentity;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

/**
 * The daemon's end of one agent connection: the last handler of the pipeline. It runs the handshake
 * as an explicit {@link State} machine (an unexpected message closes the session with an ERROR),
 * checks the rules that need the session's context (port count, the agent's own GUID), answers echoes,
 * and tracks the daemon's requests by transaction id: {@link #sendBatch} returns a future completed by
 * the commit's ACK and failed by an ERROR, a timeout or the session closing.
 *
 * <p>On a daemon that requires TLS, the session learns its peer's switch GUID from the certificate
 * once the TLS handshake completes, and admits only a HELLO naming that GUID ({@code IDENTITY_MISMATCH}
 * otherwise), so that taking over a switch's session needs that switch's certificate. In every mode a
 * HELLO whose incarnation lies beyond the daemon's clock plus {@link SouthboundSettings#incarnationAheadMs}
 * is refused ({@code INCARNATION_OUT_OF_RANGE}): no one can take a GUID with an incarnation its real
 * agent can never exceed. Both checks run before the {@link SouthboundListener} hears of the HELLO.
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
    /** Frames of a batch are written in buffers of about this size (a 65,536-entry table is 87 KB). */
    private static final int BATCH_BUFFER_BYTES = 128 * 1024;

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
    private final SouthboundRejections rejections;
    /** Batches awaiting their commit's ACK, by the commit's txid. */
    private final Map<Integer, Pending<CommitAck>> pending = new HashMap<>();
    /** The same batches, to find the one an ERROR about one of its blocks belongs to (txid ranges). */
    private final List<Pending<CommitAck>> batches = new ArrayList<>();
    private final Map<Integer, Pending<DetectorConfigReply>> pendingConfigs = new HashMap<>();
    /**
     * The configuration whose wait ended without an answer, still listened for (its answer completes the
     * NO_ANSWER's {@link DetectorConfigReply#late()}); at most one: a newer configuration supersedes it.
     */
    private Pending<DetectorConfigReply> lateConfig;
    /** Echoes sent by {@link #probe}, by txid: their replies complete them (the periodic echoes are not here). */
    private final Map<Integer, Pending<Long>> probes = new HashMap<>();

    private Channel channel;
    private volatile State state = State.AWAIT_HELLO;
    private volatile Hello hello;
    private volatile long lastRttNanos = -1;
    private volatile SocketAddress remote;
    private int peerMaxFrame = Protocol.MIN_MAX_FRAME;
    private int nextTxid;
    private String closeReason;
    /** This connection was counted as a refused peer already. */
    private boolean rejected;
    private boolean closeReported;
    private ScheduledFuture<?> handshakeTimer;
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
        this.rejections = rejections;
    }

    /** The switch GUID the peer authenticated as (its certificate), empty on a plaintext daemon or before the handshake. */
    public OptionalLong certificateGuid() {
        return certificateGuid;
    }

    // ---- identity and state (any thread) ----------------------------------------------------

    /** A number unique to this session within the JVM, for logs and bookkeeping. */
    @Override
    public long id() {
        return id;
    }

    /** The HELLO this session sent, or {@code null} before it. */
    @Override
    public Hello hello() {
        return hello;
    }

    /** The switch's GUID, or 0 before HELLO. */
    @Override
    public long guid() {
        Hello h = hello;
        return h == null ? 0 : h.guid();
    }

    public State state() {
        return state;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    /** The last echo round-trip time in nanoseconds, or -1 before the first reply. */
    @Override
    public long lastRttNanos() {
        return lastRttNanos;
    }

    @Override
    public String toString() {
        Hello h = hello;
        return "session #" + id + " from " + remote + (h == null ? "" : " (" + Guids.format(h.guid()) + " " + h.name() + ")");
    }

    // ---- commands from the daemon (any thread) ------------------------------------------------

    /** Completes the handshake's GUID check: sends HELLO_REPLY and waits for PORT_INFO. */
    @Override
    public void acceptHello(long daemonId) {
        onLoop(() -> {
            if (state != State.HELLO_PENDING) {
                return;
            }
            state = State.AWAIT_PORT_INFO;
            channel.writeAndFlush(new HelloReply(hello.txid(), negotiatedVersion(hello), daemonId,
                    settings.maxFrameBytes(), settings.echoIntervalMs(), settings.managerTerm()));
        });
    }

    /** Acknowledges a request of the agent (PORT_INFO once the daemon has accepted it). */
    @Override
    public void acknowledge(int txid, MessageType type) {
        onLoop(() -> {
            if (state != State.CLOSED) {
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

    /**
     * Sends the chunks of a DETECTOR_CONFIG (their txids are replaced by the session's own), flushing
     * once.
     *
     * @return completed (never exceptionally) with the agent's answer: RUNNING when it acknowledges the
     *         last chunk (sent once its member runs), NO_DETECTOR on a non-fatal ERROR answering any
     *         chunk, NO_ANSWER when the session closes or nothing comes within {@code timeoutMs}
     */
    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorConfig(List<Message.DetectorConfig> chunks,
                                                                     long timeoutMs) {
        return sendConfigFrames(chunks.size(), chunks::get, Message.DetectorConfig::withTxid, "DETECTOR_CONFIG", timeoutMs);
    }

    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorWindow(Message.DetectorWindow window, long timeoutMs) {
        return sendConfigFrames(1, i -> window, Message.DetectorWindow::withTxid, "DETECTOR_WINDOW", timeoutMs);
    }

    @Override
    public void sendDetectorPeers(Message.DetectorPeers peers) {
        Channel ch = channel;
        if (ch == null) {
            return;
        }
        onLoopOf(ch, () -> {
            if (state == State.ACTIVE) {
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
            Pending<Long> p = new Pending<>(future, new int[] {txid});
            probes.put(txid, p);
            channel.writeAndFlush(new EchoRequest(txid, System.nanoTime()));
            p.timer = channel.eventLoop().schedule(() -> finish(probes, p, null, new RequestFailedException(
                    "no echo reply within " + timeoutMs + " ms", true)), timeoutMs, TimeUnit.MILLISECONDS);
        });
        return future;
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
            if (state != State.ACTIVE) {
                future.completeExceptionally(new RequestFailedException(this + " is " + state, false));
                return;
            }
            request.run();
        })) {
            future.completeExceptionally(new RequestFailedException(this + " is closing (the daemon stops)", false));
        }
    }

    /** Sends {@code count} frames of one configuration under the session's txids, flushing once. */
    private <M extends Message> CompletableFuture<DetectorConfigReply> sendConfigFrames(
            int count, IntFunction<M> frame, BiFunction<M, Integer, M> withTxid,
            String what, long timeoutMs) {
        CompletableFuture<DetectorConfigReply> future = new CompletableFuture<>();
        Channel ch = channel;
        if (ch == null || count == 0) {
            future.complete(new DetectorConfigReply(DetectorConfigReply.Outcome.NO_ANSWER, this + " is not connected"));
            return future;
        }
        boolean taken = onLoopOf(ch, () -> {
            if (state != State.ACTIVE) {
                future.complete(new DetectorConfigReply(DetectorConfigReply.Outcome.NO_ANSWER, this + " is " + state));
                return;
            }
            supersedeLateConfig();
            Pending<DetectorConfigReply> p = new Pending<>(future, new int[count]);
            for (int i = 0; i < count; i++) {
                int txid = takeTxid();
                p.txids[i] = txid;
                pendingConfigs.put(txid, p);
                channel.write(withTxid.apply(frame.apply(i), txid));
            }
            channel.flush();
            p.timer = channel.eventLoop().schedule(() -> waitEnded(p, "no answer to " + what + " within " + timeoutMs
                    + " ms"), timeoutMs, TimeUnit.MILLISECONDS);
        });
        if (!taken) {
            future.complete(new DetectorConfigReply(DetectorConfigReply.Outcome.NO_ANSWER,
                    this + " is closing (the daemon stops)"));
        }
        return future;
    }

    /**
     * The wait for configuration {@code p} ended: it is answered NO_ANSWER, but its txids stay listened for so
     * that an answer that comes later completes the reply's {@link DetectorConfigReply#late()}.
     */
    private void waitEnded(Pending<DetectorConfigReply> p, String why) {
        if (p.done) {
            return;
        }
        CompletableFuture<DetectorConfigReply> late = new CompletableFuture<>();
        finish(pendingConfigs, p, new DetectorConfigReply(DetectorConfigReply.Outcome.NO_ANSWER, why, late), null);
        if (state != State.ACTIVE) {
            late.complete(new DetectorConfigReply(DetectorConfigReply.Outcome.NO_ANSWER, this + " is " + state));
            return;
        }
        supersedeLateConfig();
        lateConfig = new Pending<>(late, p.txids);
        for (int txid : p.txids) {
            pendingConfigs.put(txid, lateConfig);
        }
    }

    /** A newer configuration replaces the one still listened for after its wait: that one will not be answered. */
    private void supersedeLateConfig() {
        if (lateConfig != null) {
            finishConfig(lateConfig, new DetectorConfigReply(DetectorConfigReply.Outcome.NO_ANSWER,
                    "superseded by a newer configuration"));
        }
    }

    /** Completes a configuration's answer (in time or late) once. */
    private void finishConfig(Pending<DetectorConfigReply> c, DetectorConfigReply reply) {
        if (c == lateConfig) {
            lateConfig = null;
        }
        finish(pendingConfigs, c, reply, null);
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
            // a few buffers and one flush for the whole batch: at a full push that is a thousand 85-byte frames
            // per switch, which as separate messages cost more in the pipeline than on the wire
            ByteBuf frames = channel.alloc().buffer(Math.min(BATCH_BUFFER_BYTES, batch.blocks().size()
                    * LftBatch.blockFrameBytes(LftBlock.SIZE) + LftBatch.COMMIT_FRAME_BYTES));
            int first = 0;
            if (batch.rules() != null) {
                // staged like a block: nothing changes on the switch until the commit
                first = takeTxid();
                LftBatch.Rules r = batch.rules();
                SouthboundCodec.encode(new Message.VcRuleSet(first, batch.version(), r.vcCount(), r.portClasses(),
                        r.transitions()), frames);
            }
            int[] firstBlock = {0};
            frames = writeBlocks(batch, frames, firstBlock);
            first = first == 0 ? firstBlock[0] : first;
            int commitTxid = takeTxid();
            SouthboundCodec.encode(new LftCommit(commitTxid, batch.version(), batch.length(), batch.commitBlocks(),
                    batch.hash(), batch.rulesHash(), settings.managerTerm()), frames);
            Pending<CommitAck> p = new Pending<>(future, new int[] {commitTxid});
            p.firstTxid = first == 0 ? commitTxid : first;
            pending.put(commitTxid, p);
            batches.add(p);
            channel.writeAndFlush(frames);
            p.timer = channel.eventLoop().schedule(() -> finish(pending, p, null, new RequestFailedException(
                    "no ACK for the commit of v" + batch.version() + " within " + timeoutMs + " ms", true)),
                    timeoutMs, TimeUnit.MILLISECONDS);
        });
        return future;
    }

    @Override
    public void stage(LftBatch batch) {
        if (batch.blocks().isEmpty()) {
            return;
        }
        // nothing to complete: a refused block makes the commit refused, and a closed session loses the staging
        whenActive(new CompletableFuture<Void>(), () -> {
            ByteBuf frames = channel.alloc().buffer(Math.min(BATCH_BUFFER_BYTES, batch.blocks().size()
                    * LftBatch.blockFrameBytes(LftBlock.SIZE)));
            channel.writeAndFlush(writeBlocks(batch, frames, new int[1]));
        });
    }

    /**
     * Encodes the blocks of {@code batch} after what {@code frames} holds, in runs when the agent takes them, writing
     * (without a flush) each buffer that fills up.
     *
     * @param first set to the first block's txid (left as it is when the batch has no block)
     * @return the buffer the next frames go into
     */
    private ByteBuf writeBlocks(LftBatch batch, ByteBuf frames, int[] first) {
        int runEntries = blockRunEntries();
        List<LftBatch.Block> blocks = batch.blocks();
        for (int from = 0; from < blocks.size(); ) {
            int to = runEntries > LftBlock.SIZE ? batch.runEnd(from, runEntries) : from + 1;
            if (frames.readableBytes() > BATCH_BUFFER_BYTES - LftBatch.runFrameBytes(runEntries)) {
                channel.write(frames);
                frames = channel.alloc().buffer(BATCH_BUFFER_BYTES);
            }
            int txid = takeTxid();
            first[0] = first[0] == 0 ? txid : first[0];
            if (runEntries > LftBlock.SIZE) {
                SouthboundCodec.encodeRun(txid, batch, from, to, frames);
            } else {
                LftBatch.Block b = blocks.get(from);
                SouthboundCodec.encode(new LftBlock(txid, batch.version(), b.base(), b.entries()), frames);
            }
            from = to;
        }
        return frames;
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
    private static boolean onLoopOf(Channel ch, Runnable r) {
        try {
            ch.eventLoop().execute(r);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private int takeTxid() {
        nextTxid = Protocol.nextTxid(nextTxid);
        return nextTxid;
    }

    private static int negotiatedVersion(Hello h) {
        return Math.min(h.maxVersion(), Protocol.MAX_VERSION);
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
        if (!settings.secure()) {
            startHandshakeTimer(ctx);
        } // else from the TLS handshake's completion: the wait for a handshake slot and the handshake itself are
          // bounded by HandshakeAdmission, and must not eat into the agent's time to say HELLO
        LOG.debug("{}: connected", this);
        super.channelActive(ctx);
    }

    /** Bounds HELLO .. PORT_INFO; from the connect on a plaintext daemon, from the TLS handshake's completion on a secure one. */
    private void startHandshakeTimer(ChannelHandlerContext ctx) {
        handshakeTimer = ctx.executor().schedule(() -> {
            if (state != State.ACTIVE && state != State.CLOSED) {
                fail(new ProtocolException(ErrorCode.HANDSHAKE_TIMEOUT, 0, 0, "handshake not complete "
                        + settings.handshakeTimeoutMs() + " ms after " + (settings.secure() ? "the TLS handshake" : "connecting")
                        + " (state " + state + ")"));
            }
        }, settings.handshakeTimeoutMs(), TimeUnit.MILLISECONDS);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
        switch (state) {
            case AWAIT_HELLO -> {
                if (!(msg instanceof Hello h)) {
                    throw unexpected(msg);
                }
                admit(h);
                hello = h;
                peerMaxFrame = h.maxFrame();
                state = State.HELLO_PENDING;
                listener.helloReceived(this, h);
            }
            case HELLO_PENDING -> throw unexpected(msg);
            case AWAIT_PORT_INFO -> {
                if (!(msg instanceof PortInfo info)) {
                    throw unexpected(msg);
                }
                checkPorts(info.ports(), true, msg);
                state = State.ACTIVE;
                if (handshakeTimer != null) {
                    handshakeTimer.cancel(false);
                }
                echoTimer = ctx.executor().scheduleAtFixedRate(this::sendEcho, settings.echoIntervalMs(),
                        settings.echoIntervalMs(), TimeUnit.MILLISECONDS);
                listener.portInfoReceived(this, info);
            }
            case ACTIVE -> active(ctx, msg);
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
                    + Protocol.MIN_VERSION + ".." + Protocol.MAX_VERSION + (h.maxVersion() < 2
                    ? " (protocol 2 authenticates switches with TLS certificates: upgrade the agent, docs/security.md)" : "");
            reject(Rejection.VERSION, remote, Guids.format(h.guid()) + ": " + message);
            throw new ProtocolException(ErrorCode.UNSUPPORTED_VERSION, h.type().code(), h.txid(), message);
        }
        if (settings.secure()) {
            OptionalLong certified = certificateGuid;
            if (certified.isEmpty() || certified.getAsLong() != h.guid()) {
                String message = "HELLO names switch " + Guids.format(h.guid()) + " but the agent's certificate "
                        + (certified.isEmpty() ? "names no switch" : "names switch " + Guids.format(certified.getAsLong()))
                        + "; a switch may only speak for the GUID of its own certificate";
                reject(Rejection.IDENTITY, remote, message);
                throw new ProtocolException(ErrorCode.IDENTITY_MISMATCH, h.type().code(), h.txid(), message);
            }
        }
        long limit = Protocol.incarnationLimit(System.currentTimeMillis(), settings.incarnationAheadMs());
        if (Long.compareUnsigned(h.incarnation(), limit) > 0) {
            String message = "switch " + Guids.format(h.guid()) + ": incarnation " + Long.toUnsignedString(h.incarnation())
                    + " lies beyond the daemon's clock plus " + settings.incarnationAheadMs() + " ms (at most "
                    + Long.toUnsignedString(limit) + "): an incarnation is the agent's start time in microseconds since "
                    + "1970 (docs/protocol.md, 3.1); check the switch's clock";
            reject(Rejection.INCARNATION, remote, message);
            throw new ProtocolException(ErrorCode.INCARNATION_OUT_OF_RANGE, h.type().code(), h.txid(), message);
        }
    }

    /** Learns the peer's switch GUID from its certificate; a certificate naming no switch ends the session. */
    private void tlsHandshakeDone(ChannelHandlerContext ctx, SslHandshakeCompletionEvent event) {
        if (!event.isSuccess()) {
            Throwable cause = event.cause();
            reject(Rejection.HANDSHAKE, remote, String.valueOf(cause == null ? "failed" : rootMessage(cause)));
            if (closeReason == null) {
                closeReason = "TLS handshake failed: " + (cause == null ? "" : rootMessage(cause));
            }
            return; // the SslHandler closes the connection
        }
        SslHandler tls = ctx.pipeline().get(SslHandler.class);
        String subject = "?";
        try {
            Certificate[] chain = tls.engine().getSession().getPeerCertificates();
            X509Certificate peer = (X509Certificate) chain[0];
            subject = peer.getSubjectX500Principal().getName();
            // a resumed session (either engine) skipped the chain check: its certificate may have expired since the
            // ticket's full handshake (a ticket lives up to 2 days, renewed up to 7); refuse it as a full handshake would
            peer.checkValidity();
            certificateGuid = FabricIdentity.switchGuid(peer);
        } catch (CertificateExpiredException | CertificateNotYetValidException e) {
            reject(Rejection.HANDSHAKE, remote, (TlsContexts.resumed(tls.engine()) ? "resumed " : "") + "TLS session of '"
                    + subject + "': the certificate is not valid now (" + e.getMessage() + ")");
            closeReason = "TLS: the session's certificate is not valid now";
            tlsEstablished = true;
            ctx.close();
            return;
        } catch (SSLPeerUnverifiedException | PkiException | ClassCastException e) {
            certificateGuid = OptionalLong.empty();
            subject = subject + " (" + e.getMessage() + ")";
        }
        if (certificateGuid.isEmpty()) {
            tlsEstablished = true; // the ERROR below travels encrypted
            String message = "certificate '" + subject + "' names no switch (needs the URI " + FabricIdentity.GUID_PREFIX
                    + "0x<16 hex digits>)";
            reject(Rejection.NO_GUID, remote, message);
            fail(new ProtocolException(ErrorCode.IDENTITY_MISMATCH, 0, 0, message));
        } else {
            tlsEstablished = true;
            LOG.debug("{}: TLS {} with switch {}", this, tls.engine().getSession().getProtocol(),
                    Guids.format(certificateGuid.getAsLong()));
            if (state == State.AWAIT_HELLO) {
                startHandshakeTimer(ctx);
            }
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c.getClass().getSimpleName() + ": " + c.getMessage();
    }

    private void active(ChannelHandlerContext ctx, Message msg) {
        if (msg instanceof PortInfo info) {
            checkPorts(info.ports(), true, msg);
            listener.portInfoReceived(this, info);
        } else if (msg instanceof PortStatus status) {
            checkPorts(status.ports(), false, msg);
            ctx.writeAndFlush(new Message.Ack(msg.txid(), MessageType.PORT_STATUS));
            listener.portStatusReceived(this, status);
        } else if (msg instanceof CommitAck ack) {
            Pending<CommitAck> p = pending.get(ack.txid());
            if (p != null && p.txids[p.txids.length - 1] == ack.txid()) {
                finish(pending, p, ack, null);
            } else {
                LOG.debug("{}: ACK of commit txid {} matches no pending request", this, ack.txid());
            }
        } else if (msg instanceof ErrorReport error) {
            Pending<CommitAck> p = batchOf(error.txid());
            if (p != null) {
                finish(pending, p, null, new AgentErrorException(error));
            }
            Pending<DetectorConfigReply> c = pendingConfigs.get(error.txid());
            if (c != null) {
                finishConfig(c, new DetectorConfigReply(DetectorConfigReply.Outcome.NO_DETECTOR,
                        error.errorCode().map(Enum::name).orElse("error " + error.code()) + ": " + error.message()));
            }
            if (error.fatal()) {
                closeReason = "agent sent " + error;
                if (state == State.AWAIT_HELLO) {
                    reject(Rejection.PROTOCOL, remote, closeReason); // unidentified: counted, logged rate-limited
                    LOG.debug("{}: closed: agent sent {}", this, error);
                } else {
                    LOG.warn("{}: closed: agent sent {}", this, error);
                }
                ctx.close();
            } else if (p == null && c == null) {
                LOG.debug("{}: agent sent {} for no pending request", this, error);
            }
        } else if (msg instanceof Message.DetectorEndpoint endpoint) {
            ctx.writeAndFlush(new Message.Ack(msg.txid(), MessageType.DETECTOR_ENDPOINT));
            listener.detectorEndpointReceived(this, endpoint);
        } else if (msg instanceof Message.DetectorLookup lookup) {
            listener.detectorLookupReceived(this, lookup);
        } else if (msg instanceof EchoRequest echo) {
            ctx.writeAndFlush(new EchoReply(echo.txid(), echo.timestamp()));
        } else if (msg instanceof EchoReply echo) {
            lastRttNanos = Math.max(0, System.nanoTime() - echo.timestamp());
            Pending<Long> probe = probes.get(echo.txid());
            if (probe != null) {
                finish(probes, probe, lastRttNanos, null);
            }
        } else if (msg instanceof Message.Ack ack) {
            Pending<DetectorConfigReply> c = pendingConfigs.get(ack.txid());
            if (c != null && (ack.ackedType() == MessageType.DETECTOR_CONFIG || ack.ackedType() == MessageType.DETECTOR_WINDOW)
                    && c.txids[c.txids.length - 1] == ack.txid()) {
                finishConfig(c, DetectorConfigReply.RUNNING);
            } else if (c == null) {
                LOG.debug("{}: ignoring {}", this, msg);
            }
        } else {
            throw unexpected(msg);
        }
    }

    private void checkPorts(List<PortRecord> ports, boolean snapshot, Message msg) {
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

    private ProtocolException unexpected(Message msg) {
        return new ProtocolException(ErrorCode.UNEXPECTED_MESSAGE, msg.type().code(), msg.txid(),
                msg.type() + " not allowed in state " + state);
    }

    private void sendEcho() {
        if (state == State.ACTIVE) {
            channel.writeAndFlush(new EchoRequest(takeTxid(), System.nanoTime()));
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            tlsHandshakeDone(ctx, done);
            return;
        }
        if (evt instanceof IdleStateEvent idle && idle.state() == IdleState.READER_IDLE && state == State.ACTIVE) {
            fail(new ProtocolException(ErrorCode.IDLE_TIMEOUT, 0, 0, "nothing received for "
                    + settings.idleTimeoutMs() + " ms"));
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof ProtocolException pe) {
            fail(pe);
        } else if (cause instanceof DecoderException && cause.getCause() instanceof SSLException tls) {
            // a failed TLS handshake is counted and logged (rate-limited) by tlsHandshakeDone
            if (closeReason == null) {
                closeReason = "TLS: " + rootMessage(tls);
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

    /** Counts a refused peer (logged rate-limited by {@link SouthboundRejections}), once per connection. */
    private void reject(Rejection reason, SocketAddress peer, String detail) {
        rejected = true;
        if (channel != null) {
            rejections.record(channel, reason, detail);
        } else {
            rejections.record(reason, peer, detail);
        }
    }

    /** Sends {@code e} as ERROR (when the connection still takes it), logs the cause and closes. */
    private void fail(ProtocolException e) {
        if (closeReason != null) {
            return;
        }
        closeReason = e.code() + ": " + e.getMessage();
        if (e.code() == ErrorCode.SHUTTING_DOWN || e.code() == ErrorCode.SUPERSEDED) {
            // the daemon's own doing, logged where it decided it (a takeover is a milestone)
            LOG.debug("{}: closed: {}", this, closeReason);
        } else if (state == State.AWAIT_HELLO) {
            // a peer that never said who it is: one WARN per connection would let a scan or a flood fill the
            // log (issue 12), so it is counted and summarised by SouthboundRejections instead
            if (!rejected) {
                reject(e.code() == ErrorCode.HANDSHAKE_TIMEOUT ? Rejection.TIMEOUT : Rejection.PROTOCOL, remote,
                        closeReason);
            }
            LOG.debug("{}: closed: {}", this, closeReason);
        } else {
            LOG.warn("{}: closed: {}", this, closeReason);
        }
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
        State previous = state;
        state = State.CLOSED;
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
        }
        if (echoTimer != null) {
            echoTimer.cancel(false);
        }
        RequestFailedException closed = new RequestFailedException(this + " closed", false);
        for (Pending<CommitAck> p : new ArrayList<>(pending.values())) {
            finish(pending, p, null, closed);
        }
        DetectorConfigReply noAnswer = new DetectorConfigReply(DetectorConfigReply.Outcome.NO_ANSWER, this + " closed");
        for (Pending<DetectorConfigReply> p : new ArrayList<>(pendingConfigs.values())) {
            finishConfig(p, noAnswer);
        }
        for (Pending<Long> p : new ArrayList<>(probes.values())) {
            finish(probes, p, null, closed);
        }
        String reason = closeReason != null ? closeReason : "connection closed by the agent";
        LOG.debug("{}: closed in state {}: {}", this, previous, reason);
        if (!closeReported) {
            closeReported = true;
            listener.sessionClosed(this, reason);
        }
        super.channelInactive(ctx);
    }

    /** The batch whose blocks or commit used {@code txid}, or {@code null}. */
    private Pending<CommitAck> batchOf(int txid) {
        for (Pending<CommitAck> b : batches) {
            int commit = b.txids[0];
            // txids count up from firstTxid to the commit's, wrapping past 0 (never used): compare as offsets
            if (Integer.toUnsignedLong(txid - b.firstTxid) <= Integer.toUnsignedLong(commit - b.firstTxid)) {
                return b;
            }
        }
        return null;
    }

    /** Completes a request once: forgets all its txids, stops its timer, then completes its future. */
    private <T> void finish(Map<Integer, Pending<T>> requests, Pending<T> p, T value, Throwable failure) {
        if (p.done) {
            return;
        }
        batches.remove(p);
        p.done = true;
        for (int txid : p.txids) {
            requests.remove(txid);
        }
        if (p.timer != null) {
            p.timer.cancel(false);
        }
        if (failure != null) {
            p.future.completeExceptionally(failure);
        } else {
            p.future.complete(value);
        }
    }

    /**
     * LFT_BLOCKS runs as long as the agent's receive limit allows, up to {@link Protocol#MAX_RUN_ENTRIES}, when its
     * HELLO announced {@link Protocol#FEATURE_LFT_RUNS}; 64 (one LFT_BLOCK per block) otherwise.
     */
    @Override
    public int blockRunEntries() {
        Hello h = hello;
        if (h == null || (h.features() & Protocol.FEATURE_LFT_RUNS) == 0) {
            return LftBlock.SIZE;
        }
        int fit = (h.maxFrame() - Protocol.HEADER_BYTES - 14) / LftBlock.SIZE * LftBlock.SIZE;
        return Math.max(LftBlock.SIZE, Math.min(Protocol.MAX_RUN_ENTRIES, fit));
    }

    /** The largest frame the agent accepts (from its HELLO). */
    public int peerMaxFrame() {
        return peerMaxFrame;
    }

    /**
     * A request in flight: a DETECTOR_CONFIG with every txid it used, or a batch with its commit's txid (its
     * blocks' txids run from {@code firstTxid} up to it); its future and its timeout.
     */
    private static final class Pending<T> {
        final CompletableFuture<T> future;
        final int[] txids;
        /** A batch's first block txid (its commit's when it has no block); unused by other requests. */
        int firstTxid;
        ScheduledFuture<?> timer;
        boolean done;

        Pending(CompletableFuture<T> future, int[] txids) {
            this.future = future;
            this.txids = txids;
        }
    }
}
