package org.fabricmanager.agent;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.fabricmanager.agent.SwitchAgent.State;
import org.fabricmanager.pki.FabricIdentity;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.pki.TlsFailures;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.DetectorConfig;
import org.fabricmanager.southbound.Message.EchoReply;
import org.fabricmanager.southbound.Message.EchoRequest;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.HelloReply;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.Message.LftCommit;
import org.fabricmanager.southbound.MessageType;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.ProtocolException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's handler of one connection to a manager (a new one per connect, last in the pipeline): it
 * authenticates the daemon over TLS, says HELLO, takes HELLO_REPLY as the start of a session, then stages
 * LFT blocks and VC rules, applies commits (refusing those of a deposed manager's term), answers echoes, passes
 * the detector's messages to the {@link DetectorLink}, and turns refusals, timeouts and protocol violations into a
 * close, after which the {@link ManagerConnector} reconnects. Runs on the agent's event loop.
 */
final class AgentChannelHandler extends SimpleChannelInboundHandler<Message> {
    // the agent's logger, as before the split: operators' log settings name SwitchAgent
    private static final Logger LOG = LoggerFactory.getLogger(SwitchAgent.class);

    private final SwitchAgent agent;
    private final AgentState state;
    private final DetectorLink detector;
    private final ManagerConnector connector;
    private final AgentSettings settings;
    /** Whether the connection starts with a TLS handshake (HELLO waits for the daemon's certificate). */
    private final boolean tls;
    private String closeCause;

    AgentChannelHandler(SwitchAgent agent, AgentState state, DetectorLink detector, ManagerConnector connector,
                        AgentSettings settings, boolean tls) {
        this.agent = agent;
        this.state = state;
        this.detector = detector;
        this.connector = connector;
        this.settings = settings;
        this.tls = tls;
    }

    /** Closes a connection whose HELLO_REPLY does not come within the handshake timeout. */
    static IdleStateHandler helloReplyTimeout(AgentSettings settings) {
        return new IdleStateHandler(settings.handshakeTimeoutMs(), 0, 0, TimeUnit.MILLISECONDS);
    }

    private Hello hello() {
        AppliedTable t = state.table();
        return new Hello(state.takeTxid(), Protocol.MIN_VERSION, Protocol.MAX_VERSION, agent.guid(), state.incarnation(),
                agent.portCount(), settings.maxFrameBytes(), t.version(), t.length(), t.hash(), agent.name(),
                settings.helloFeatures() | detector.helloFeatures(settings.maxFrameBytes())
                        | (agent.counters() != null ? Protocol.FEATURE_PORT_COUNTERS : 0));
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (!connector.running() || !connector.owns(ctx.channel())) {
            ctx.close();
            return;
        }
        state.enter(State.HELLO_SENT);
        if (!tls) {
            ctx.writeAndFlush(hello());
        } // else HELLO goes once the daemon is authenticated (tlsHandshakeDone)
    }

    /** Says HELLO to an authenticated daemon; anything else ends the connection (and is retried with backoff). */
    private void tlsHandshakeDone(ChannelHandlerContext ctx, SslHandshakeCompletionEvent event) {
        if (!event.isSuccess()) {
            // in plain words with either engine (BoringSSL says "General OpenSslEngine problem" for all of them)
            closeCause = "TLS handshake with the daemon failed: " + TlsFailures.byAgent(event.cause(),
                    settings.tls() == null ? null : settings.tls().certificate());
            LOG.warn("{}: {}", agent, closeCause);
            ctx.close();
            return;
        }
        X509Certificate peer;
        try {
            peer = (X509Certificate) ctx.pipeline().get(SslHandler.class).engine().getSession()
                    .getPeerCertificates()[0];
        } catch (SSLPeerUnverifiedException e) {
            closeCause = "the daemon presented no certificate";
            LOG.warn("{}: {}", agent, closeCause);
            ctx.close();
            return;
        }
        if (!FabricIdentity.isDaemon(peer)) {
            closeCause = "the peer at " + connector.target() + " presented '" + peer.getSubjectX500Principal().getName()
                    + "', not the daemon's certificate (" + FabricIdentity.DAEMON_URI + ")";
            LOG.warn("{}: {}", agent, closeCause);
            ctx.close();
            return;
        }
        // TLS takes a server certificate without extended key usages (and a CA's): a daemon's must say serverAuth
        String problem = FabricIdentity.daemonCertificateProblem(peer);
        if (problem != null) {
            closeCause = "the peer at " + connector.target() + " presented '" + peer.getSubjectX500Principal().getName()
                    + "', which names " + FabricIdentity.DAEMON_URI + " but " + problem + ": not a daemon certificate"
                    + " (re-issue it: fabric-manager pki issue --daemon)";
            LOG.warn("{}: {}", agent, closeCause);
            ctx.close();
            return;
        }
        if (TlsContexts.resumed(ctx.pipeline().get(SslHandler.class).engine())) {
            state.tlsResumptions().incrementAndGet();
        }
        if (state.state() == State.HELLO_SENT && connector.owns(ctx.channel())) {
            ctx.pipeline().addBefore("frames", "idle", helloReplyTimeout(settings));
            ctx.writeAndFlush(hello());
        }
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
        if (state.state() == State.HELLO_SENT) {
            if (msg instanceof HelloReply reply) {
                helloReplied(ctx, reply);
            } else if (msg instanceof ErrorReport error) {
                refused(ctx, error);
            } else {
                throw unexpected(msg);
            }
            return;
        }
        if (state.state() != State.ACTIVE) {
            return;
        }
        if (msg instanceof LftBlock block) {
            state.blocksReceived().incrementAndGet();
            try {
                state.stager().stage(block);
            } catch (ProtocolException e) {
                ctx.writeAndFlush(e.toMessage());
            }
        } else if (msg instanceof Message.LftBlocks run) {
            if (!settings.lftRuns()) {
                unknownType(ctx, run.txid(), MessageType.LFT_BLOCKS);
                return;
            }
            state.blocksReceived().addAndGet(run.blockCount());
            try {
                state.stager().stage(run);
            } catch (ProtocolException e) {
                ctx.writeAndFlush(e.toMessage());
            }
        } else if (msg instanceof LftCommit commit) {
            commit(ctx, commit);
        } else if (msg instanceof Message.VcRuleSet rules) {
            if (!settings.vcRules()) {
                unknownType(ctx, rules.txid(), MessageType.VC_RULES);
                return;
            }
            try {
                state.stager().stage(rules);
            } catch (ProtocolException e) {
                ctx.writeAndFlush(e.toMessage());
            }
        } else if (msg instanceof EchoRequest echo) {
            ctx.writeAndFlush(new EchoReply(echo.txid(), echo.timestamp()));
        } else if (msg instanceof Message.CountersRequest request) {
            counters(ctx, request);
        } else if (msg instanceof DetectorConfig config) {
            detector.config(ctx, config);
        } else if (msg instanceof Message.DetectorWindow window) {
            detector.window(ctx, window);
        } else if (msg instanceof Message.DetectorPeers peers) {
            detector.peers(peers);
        } else if (msg instanceof ErrorReport error) {
            if (error.fatal()) {
                refused(ctx, error);
            } else {
                LOG.debug("{}: daemon reported {}", agent, error);
            }
        } else if (msg instanceof Message.Ack || msg instanceof EchoReply) {
            // acknowledgements of PORT_INFO / PORT_STATUS need no action
        } else {
            throw unexpected(msg);
        }
    }

    /** The session starts: the daemon's echo interval bounds its silence from now on; the ports go first. */
    private void helloReplied(ChannelHandlerContext ctx, HelloReply reply) {
        if (reply.version() < Protocol.MIN_VERSION || reply.version() > Protocol.MAX_VERSION) {
            throw new ProtocolException(ErrorCode.UNSUPPORTED_VERSION, reply.type().code(), reply.txid(),
                    "daemon chose version " + reply.version() + ", agent speaks " + Protocol.MIN_VERSION + ".."
                            + Protocol.MAX_VERSION);
        }
        state.daemonAnswered(reply);
        ctx.pipeline().replace("idle", "idle",
                new IdleStateHandler(3L * reply.echoIntervalMs(), 0, 0, TimeUnit.MILLISECONDS));
        connector.handshakeCompleted();
        detector.sessionStarted();
        state.handshakes().incrementAndGet();
        state.enter(State.ACTIVE);
        ctx.writeAndFlush(new Message.PortInfo(state.takeTxid(), state.ports()));
        detector.announceEndpoint(ctx);
    }

    /** Applies a commit and acknowledges it with the table's version, length and hashes; or refuses it. */
    private void commit(ChannelHandlerContext ctx, LftCommit commit) {
        try {
            AppliedTable next = state.applyCommit(commit);
            ctx.writeAndFlush(new CommitAck(commit.txid(), next.version(), next.length(), next.hash(),
                    settings.vcRules() ? next.rulesHash() : 0));
            state.tableApplied(next);
        } catch (ProtocolException e) {
            state.commitsRefused().incrementAndGet();
            LOG.debug("{}: commit refused: {}", agent, e.getMessage());
            ctx.writeAndFlush(e.toMessage());
        }
    }

    /**
     * Answers a PORT_COUNTERS_REQUEST with the ports asked for that the switch has, as many as fit the daemon's
     * receive limit (the daemon asks again from the first port missing); an agent without counters plays one that
     * predates them.
     */
    private void counters(ChannelHandlerContext ctx, Message.CountersRequest request) {
        PortCounterSource source = agent.counters();
        if (source == null) {
            unknownType(ctx, request.txid(), MessageType.PORT_COUNTERS_REQUEST);
            return;
        }
        if (request.firstPort() > agent.portCount()) {
            throw new ProtocolException(ErrorCode.MALFORMED, request.type().code(), request.txid(), "first port "
                    + request.firstPort() + " above the switch's " + agent.portCount());
        }
        int last = Math.min(Math.min(request.lastPort(), agent.portCount()),
                request.firstPort() + PortCounters.portsPerFrame(state.daemonMaxFrame()) - 1);
        try {
            ctx.writeAndFlush(new Message.Counters(request.txid(), source.read(request.firstPort(), last)));
        } catch (IOException e) {
            LOG.debug("{}: port counters unavailable: {}", agent, e.getMessage());
            ctx.writeAndFlush(new ErrorReport(request.txid(), ErrorCode.COUNTERS_UNAVAILABLE.code(),
                    request.type().code(), e.getMessage() == null ? "port counters unavailable" : e.getMessage()));
        }
    }

    /**
     * What an agent that predates {@code type} (LFT_BLOCKS, VC_RULES) answers it, playing one: it knows no such
     * type ("unknown message type 0x14"), and closes.
     */
    private static void unknownType(ChannelHandlerContext ctx, int txid, MessageType type) {
        ctx.writeAndFlush(new ErrorReport(txid, ErrorCode.UNKNOWN_TYPE.code(), type.code(),
                String.format("unknown message type 0x%02x", type.code())));
        ctx.close();
    }

    private void refused(ChannelHandlerContext ctx, ErrorReport error) {
        closeCause = "daemon sent " + error;
        connector.refused(error);
        ctx.close();
    }

    private ProtocolException unexpected(Message msg) {
        return new ProtocolException(ErrorCode.UNEXPECTED_MESSAGE, msg.type().code(), msg.txid(),
                msg.type() + " not allowed in state " + state.state());
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            tlsHandshakeDone(ctx, done);
            return;
        }
        if (evt instanceof IdleStateEvent) {
            boolean silent = state.state() == State.ACTIVE;
            closeCause = silent ? "daemon silent for 3 echo intervals" : "no HELLO_REPLY in time";
            if (silent) {
                connector.managerSilent();
            }
            LOG.info("{}: {}, reconnecting", agent, closeCause);
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof ProtocolException pe) {
            closeCause = pe.code() + ": " + pe.getMessage();
            LOG.warn("{}: protocol violation by the daemon: {}", agent, closeCause);
            if (ctx.channel().isActive()) {
                ctx.writeAndFlush(pe.toMessage()).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.close();
            }
        } else {
            boolean tlsFailure = cause instanceof DecoderException && cause.getCause() instanceof SSLException;
            closeCause = cause instanceof IOException ? cause.getMessage()
                    : tlsFailure ? "TLS: " + cause.getCause().getMessage() : cause.toString();
            if (tlsFailure && tls && state.state() == State.HELLO_SENT && TlsFailures.isAlert(cause)) {
                // TLS 1.3: our side of the handshake ends before the daemon checks our certificate, so its refusal comes
                // as an alert after the handshake, before any HELLO_REPLY
                closeCause = "TLS handshake with the daemon failed: " + TlsFailures.byAgent(cause,
                        settings.tls() == null ? null : settings.tls().certificate());
                LOG.warn("{}: {}", agent, closeCause);
            }
            if (!(cause instanceof IOException) && !tlsFailure) {
                LOG.error("{}: internal error", agent, cause);
            }
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state.stager().clear();
        connector.disconnected(ctx.channel(), closeCause);
    }
}
