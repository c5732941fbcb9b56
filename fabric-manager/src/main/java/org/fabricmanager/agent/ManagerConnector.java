package org.fabricmanager.agent;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.SwitchAgent.State;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.FrameDecoder;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.MessageDecoder;
import org.fabricmanager.southbound.MessageEncoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent's way to a manager: it connects (with TLS when its settings carry TLS material) and builds each
 * connection's pipeline, and when a connection fails or ends it reconnects: at once to the next manager of its
 * list while a round over several managers lasts, at once to where a standby's redirect points, else after an
 * exponential backoff with jitter ({@link Backoff}). Runs on the agent's event loop and needs no locks.
 */
final class ManagerConnector {
    // the agent's logger, as before the split: operators' log settings name SwitchAgent
    private static final Logger LOG = LoggerFactory.getLogger(SwitchAgent.class);

    /** Largest delay between two rounds over several managers (see scheduleReconnect). */
    private static final long MAX_ROUND_DELAY_MS = 250;
    /**
     * Largest reconnection delay after the daemon said SHUTTING_DOWN, for {@link #RETURN_PROBES} attempts: a
     * restarted daemon (an upgrade, a configuration change) listens again after its JVM's start, a second or two, and
     * agents whose delays had grown to the 5 s cap meanwhile came back up to 5 s after it. Full jitter within it:
     * 5,120 agents make about 10,000 refused connects a second while it is down.
     */
    static final long RETURN_PROBE_MS = 1_000;
    /** Attempts at that rate after SHUTTING_DOWN (about 30 s), then the usual growth to the cap. */
    static final int RETURN_PROBES = 60;
    /** At most this many standbys' redirects are followed in a row before the agent walks its list again. */
    private static final int MAX_REDIRECTS_IN_ROW = 3;
    /**
     * How long a manager that fell silent is passed over, by the walk of the list and by standbys' redirects, while
     * the list has others. Standbys name the old leader until they elect another (a few election timeouts), and a
     * frozen process's kernel still accepts the connection: dialling it again costs the whole handshake timeout (60 s
     * under TLS). A leader that was only slow is reached again after this, through the list or a redirect.
     */
    static final long AVOID_SILENT_MS = 10_000;

    private final SwitchAgent agent;
    private final AgentState state;
    private final DetectorLink detector;
    private final AgentSettings settings;
    private final EventLoop loop;
    private final Backoff backoff;
    private final SslContext tls;
    private final Bootstrap bootstrap;

    /** Index into {@link AgentSettings#managers} of the manager to connect to (loop thread). */
    private int managerIndex;
    /**
     * Where a standby's {@code ERROR NOT_LEADER} sent this agent: the next connect goes there at once, once
     * (loop thread; {@code null} when no redirect is pending).
     */
    private InetSocketAddress redirect;
    /** Redirects followed since the last handshake (loop thread): bounds a loop between two confused standbys. */
    private int redirectsInRow;
    /** The address of the current or last connect (loop thread). */
    private InetSocketAddress connectedTo;
    /** Whether the current connection reached ACTIVE: its end keeps the manager, a failed attempt moves on. */
    private boolean handshakeDone;
    /** The manager that last fell silent while the list has others ({@code null}: none), and since when (loop thread). */
    private InetSocketAddress silent;
    private long silentSinceNanos;
    private volatile InetSocketAddress localAddress;

    // event-loop confined
    private boolean running;
    private Channel channel;
    private ScheduledFuture<?> reconnectTimer;

    ManagerConnector(SwitchAgent agent, AgentState state, DetectorLink detector, AgentSettings settings,
                     AgentDependencies deps) {
        this.agent = agent;
        this.state = state;
        this.detector = detector;
        this.settings = settings;
        this.loop = deps.loop();
        this.backoff = new Backoff(settings.initialBackoffMs(), settings.maxBackoffMs(), deps.random());
        this.tls = settings.tls() == null ? null
                : TlsContexts.client(settings.tls(), settings.tlsProvider().engine(settings.tls()));
        ConnectionTap tap = deps.tap();
        Executor tlsWork = deps.tlsWork();
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, settings.connectTimeoutMs())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        pipeline(ch, tap, tlsWork);
                    }
                });
    }

    /** A new connection's handlers: TLS or the HELLO_REPLY timeout, frames, codec, the embedding's tap, the agent's. */
    private void pipeline(SocketChannel ch, ConnectionTap tap, Executor tlsWork) {
        if (tls != null) {
            // one session-cache key for every manager: the agent offers its last ticket to whichever
            // manager it reaches (they share ticket keys), so a failover or a restart resumes
            SslHandler handler = tlsWork == null
                    ? tls.newHandler(ch.alloc(), TlsContexts.MANAGERS_PEER_HOST, TlsContexts.MANAGERS_PEER_PORT)
                    : tls.newHandler(ch.alloc(), TlsContexts.MANAGERS_PEER_HOST, TlsContexts.MANAGERS_PEER_PORT,
                    tlsWork);
            // from the connect, so it includes the wait in the daemon's admission queue
            handler.setHandshakeTimeoutMillis(settings.tlsHandshakeTimeoutMs());
            ch.pipeline().addLast("tls", handler);
        } else {
            ch.pipeline().addLast("idle", AgentChannelHandler.helloReplyTimeout(settings));
        } // with TLS, the HELLO_REPLY timeout starts when the TLS handshake completes (tlsHandshakeDone)
        ch.pipeline()
                .addLast("frames", new FrameDecoder(settings.maxFrameBytes()))
                .addLast("decoder", new MessageDecoder())
                .addLast("encoder", MessageEncoder.INSTANCE);
        if (tap != null) {
            ch.pipeline().addLast("tap", tap.newHandler());
        }
        ch.pipeline().addLast("agent", new AgentChannelHandler(agent, state, detector, this, settings, tls != null));
    }

    // ---- asked by the agent (event loop) ---------------------------------------------------------

    boolean running() {
        return running;
    }

    /** The current connection, or {@code null}. */
    Channel channel() {
        return channel;
    }

    /** Starts connecting, with a fresh backoff. */
    void start() {
        running = true;
        backoff.reset();
        connect();
    }

    /** Leaves the running state and cancels a pending reconnect. */
    void stopReconnecting() {
        running = false;
        if (reconnectTimer != null) {
            reconnectTimer.cancel(false);
            reconnectTimer = null;
        }
    }

    /** Closes the current connection, if any; {@code done} completes once it is closed. */
    void close(Promise<Void> done) {
        if (channel != null) {
            channel.close().addListener(f -> done.setSuccess(null));
        } else {
            done.setSuccess(null);
        }
    }

    void bindFrom(InetAddress address) {
        localAddress = address == null ? null : new InetSocketAddress(address, 0);
    }

    InetAddress boundAddress() {
        InetSocketAddress a = localAddress;
        return a == null ? null : a.getAddress();
    }

    // ---- told by the connection's handler (event loop) -------------------------------------------

    /** Whether {@code ch} is the connection this connector made last (others are leftovers to close). */
    boolean owns(Channel ch) {
        return channel == ch;
    }

    /** The manager this agent connects to now (or last did). */
    InetSocketAddress target() {
        return connectedTo != null ? connectedTo : settings.managers().get(managerIndex);
    }

    /** HELLO_REPLY came: the manager is kept when the connection ends, and backoff and redirects count anew. */
    void handshakeCompleted() {
        backoff.reset();
        handshakeDone = true;
        redirectsInRow = 0;
        silent = null;
    }

    /**
     * The manager fell silent on an established session: with several managers the agent moves on to the next one at
     * once, as after a failed attempt. A paused manager (SIGSTOP, a long GC pause) still has its kernel accept
     * connections, and would hold the agent's new handshake until it times out (the TLS one is generous, for the
     * daemon's admission queue), and standbys redirect to it until they elect another: it is passed over for
     * {@link #AVOID_SILENT_MS}. A leader that was only slow is reached again after that.
     */
    void managerSilent() {
        handshakeDone = false;
        if (settings.managers().size() > 1) {
            silent = connectedTo;
            silentSinceNanos = System.nanoTime();
        }
    }

    /** Whether {@code to} fell silent less than {@link #AVOID_SILENT_MS} ago (and the list has other managers). */
    private boolean avoided(InetSocketAddress to) {
        if (silent == null) {
            return false;
        }
        if (System.nanoTime() - silentSinceNanos > TimeUnit.MILLISECONDS.toNanos(AVOID_SILENT_MS)) {
            silent = null;
            return false;
        }
        return sameManager(silent, to);
    }

    private static boolean sameManager(InetSocketAddress a, InetSocketAddress b) {
        return a.getPort() == b.getPort() && a.getHostString().equals(b.getHostString());
    }

    /** The daemon refused this connection with a fatal ERROR: a standby's redirect is followed, a stopping daemon expected back. */
    void refused(ErrorReport error) {
        ErrorCode code = error.errorCode().orElse(null);
        if (code == ErrorCode.NOT_LEADER) {
            if (state.state() == State.HELLO_SENT) {
                redirected(error);
            }
            LOG.debug("{}: daemon sent {}", agent, error);
        } else if (code == ErrorCode.SHUTTING_DOWN) {
            LOG.debug("{}: daemon sent {}", agent, error);
            backoff.expectReturn(RETURN_PROBE_MS, RETURN_PROBES);
        } else {
            LOG.info("{}: daemon sent {}", agent, error);
        }
    }

    /** Connection {@code ch} closed; when it was the current one, the agent reconnects. */
    void disconnected(Channel ch, String cause) {
        if (channel == ch) {
            channel = null;
            LOG.debug("{}: disconnected ({})", agent, cause == null ? "closed by the daemon" : cause);
            scheduleReconnect();
        }
    }

    // ---- connecting and reconnecting -------------------------------------------------------------

    private void connect() {
        reconnectTimer = null;
        if (!running) {
            return;
        }
        state.enter(State.CONNECTING);
        handshakeDone = false;
        InetSocketAddress from = localAddress;
        if (redirect == null && avoided(settings.managers().get(managerIndex))) {
            managerIndex = (managerIndex + 1) % settings.managers().size();
        }
        InetSocketAddress to = redirect != null ? redirect : settings.managers().get(managerIndex);
        redirect = null;
        connectedTo = to;
        ChannelFuture f = from == null ? bootstrap.connect(to) : bootstrap.connect(to, from);
        channel = f.channel();
        f.addListener((ChannelFutureListener) cf -> {
            if (!cf.isSuccess()) {
                LOG.debug("{}: connect to {} failed: {}", agent, to, cf.cause().toString());
                // channelInactive is not fired for a channel that never connected
                if (channel == cf.channel()) {
                    channel = null;
                    scheduleReconnect();
                }
            }
        });
    }

    /**
     * A standby's answer to HELLO names the active manager, or none. A usable address becomes the next connect,
     * made at once; a known manager's address also moves the place in the list, so that the walk resumes after
     * the leader when it fails.
     */
    private void redirected(ErrorReport error) {
        Optional<InetSocketAddress> to = error.activeManager();
        if (to.isEmpty() || redirectsInRow >= MAX_REDIRECTS_IN_ROW || avoided(to.get())) {
            return; // a redirect to the manager that fell silent: the standby has not seen the election yet
        }
        redirectsInRow++;
        redirect = to.get();
        List<InetSocketAddress> managers = settings.managers();
        for (int i = 0; i < managers.size(); i++) {
            if (sameManager(managers.get(i), redirect)) {
                managerIndex = i;
            }
        }
    }

    private void scheduleReconnect() {
        if (!running) {
            state.enter(State.STOPPED);
            return;
        }
        if (redirect != null) {
            // a standby named the active manager: go there now, not after a round over the list
            state.enter(State.WAITING);
            reconnectTimer = loop.schedule(this::connect, 0, TimeUnit.MILLISECONDS);
            return;
        }
        int managers = settings.managers().size();
        if (managers > 1 && !handshakeDone) {
            // a dead manager or a standby (which refuses HELLO): try the next one at once, and back off only
            // after a whole round, so that a failover costs one round of connects rather than a backoff each
            managerIndex = (managerIndex + 1) % managers;
            if (managerIndex != 0) {
                state.enter(State.WAITING);
                reconnectTimer = loop.schedule(this::connect, 0, TimeUnit.MILLISECONDS);
                return;
            }
        }
        long delay = backoff.nextDelayMs();
        if (settings.managers().size() > 1) {
            // hot-standby managers: a new leader is elected within about two election timeouts, and a round
            // of refused connects is cheap, so rounds are not spaced further apart than this
            delay = Math.min(delay, MAX_ROUND_DELAY_MS);
        }
        state.enter(State.WAITING);
        LOG.debug("{}: reconnecting in {} ms (attempt {})", agent, delay, backoff.attempts());
        reconnectTimer = loop.schedule(this::connect, delay, TimeUnit.MILLISECONDS);
    }
}
