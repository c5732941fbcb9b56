package org.fabricmanager.agent;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.pki.FabricIdentity;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.FrameDecoder;
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
import org.fabricmanager.southbound.MessageDecoder;
import org.fabricmanager.southbound.MessageEncoder;
import org.fabricmanager.southbound.MessageType;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.ProtocolException;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * One switch's agent: the switch's ports and neighbours, the forwarding table it applies (with version
 * and hash) and its connection to the daemon ({@code docs/protocol.md}). It connects, says HELLO with
 * the table it holds, sends its ports, stages LFT blocks and applies each commit atomically, reports
 * port changes, and reconnects with exponential backoff and jitter whenever the connection is lost.
 *
 * <p>With TLS material in its {@link AgentSettings} the agent speaks TLS 1.3, presents its switch's
 * certificate, trusts only the fabric CA(s), and says HELLO only once the daemon has proved to be the
 * daemon (its certificate names {@code urn:fabric:daemon}: another switch's certificate, also signed
 * by the fabric CA, does not).
 *
 * <p>All state changes run on the agent's own event loop (given at construction and possibly shared
 * with thousands of other agents), so the agent needs no locks; the public methods may be called from
 * any thread.
 */
public final class SwitchAgent {
    private static final Logger LOG = LoggerFactory.getLogger(SwitchAgent.class);

    /** Connection states of an agent ({@code docs/protocol.md}, section 4). */
    public enum State {
        /** Not running: never started, stopped or killed. */
        STOPPED,
        /** Waiting out a backoff delay before reconnecting. */
        WAITING,
        /** TCP connect in progress. */
        CONNECTING,
        /** Connected, HELLO sent, waiting for HELLO_REPLY. */
        HELLO_SENT,
        /** Handshake complete: receives tables and reports port changes. */
        ACTIVE
    }

    private final long guid;
    private final String name;
    private final int portCount;
    private final AgentSettings settings;
    private final EventLoop loop;
    private final AgentListener listener;
    private final Bootstrap bootstrap;
    private final Backoff backoff;
    /**
     * The highest Raft term of a hot-standby manager seen in HELLO_REPLY or LFT_COMMIT (loop thread; 0
     * outside a group); kept across sessions, so a deposed manager's later commit is refused.
     */
    private long highestTerm;
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
    /** Index into {@link AgentSettings#managers} of the manager to connect to (loop thread). */
    private int managerIndex;
    /** At most this many standbys' redirects are followed in a row before the agent walks its list again. */
    private static final int MAX_REDIRECTS_IN_ROW = 3;
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
    private final ConnectionTap tap;
    private final TableStager stager;
    private final DetectorConfigAssembler detectorAssembler = new DetectorConfigAssembler();
    private final SslContext tls;
    /** Runs the TLS handshake's heavy steps ({@code null}: the event loop). */
    private final Executor tlsWork;

    private volatile PortRecord[] ports;
    private volatile AppliedTable table = AppliedTable.EMPTY;
    private volatile State state = State.STOPPED;
    private volatile long incarnation;
    private volatile long incarnationFloor;
    private volatile long daemonId;
    private volatile RingAssignment detectorRing;
    private volatile InetSocketAddress localAddress;
    private volatile DetectorConfigListener detectorListener;
    private volatile int detectorPort;
    /** Whether the agent announces {@link Protocol#FEATURE_DETECTOR_WINDOW} (with a detector). */
    private volatile boolean detectorWindow = true;

    private final AtomicLong blocksReceived = new AtomicLong();
    private final AtomicLong commitsApplied = new AtomicLong();
    private final AtomicLong commitsRefused = new AtomicLong();
    private final AtomicLong handshakes = new AtomicLong();
    private final AtomicLong tlsResumptions = new AtomicLong();

    // event-loop confined
    private boolean running;
    private Channel channel;
    private int nextTxid;
    private io.netty.util.concurrent.ScheduledFuture<?> reconnectTimer;

    /**
     * @param ports    the initial port records, one per port 1..{@code portCount} (missing ports are DOWN)
     * @param loop     the event loop this agent's connection and state live on
     * @param listener observer, or {@code null}
     * @param random   source of the backoff jitter
     */
    public SwitchAgent(long guid, String name, int portCount, Collection<PortRecord> ports, AgentSettings settings,
                       EventLoop loop, AgentListener listener, Random random) {
        this(guid, name, portCount, ports, settings, loop, listener, random, null);
    }

    /**
     * As {@link #SwitchAgent(long, String, int, Collection, AgentSettings, EventLoop, AgentListener, Random)}, with
     * a tap placed on every connection ({@code null}: none).
     */
    public SwitchAgent(long guid, String name, int portCount, Collection<PortRecord> ports, AgentSettings settings,
                       EventLoop loop, AgentListener listener, Random random, ConnectionTap tap) {
        this(guid, name, portCount, ports, settings, loop, listener, random, tap, null);
    }

    /**
     * As above, with the TLS handshake's CPU-heavy steps run by {@code tlsWork} rather than on {@code loop}
     * ({@code null}: on the loop). Many agents sharing a few event loops (a simulator) pass a shared executor,
     * so that one agent's handshake does not hold up the echoes and acks of the others on its loop.
     */
    public SwitchAgent(long guid, String name, int portCount, Collection<PortRecord> ports, AgentSettings settings,
                       EventLoop loop, AgentListener listener, Random random, ConnectionTap tap,
                       Executor tlsWork) {
        if (portCount < 1 || portCount > Protocol.MAX_PORTS) {
            throw new IllegalArgumentException("switch " + Guids.format(guid) + ": port count " + portCount);
        }
        this.guid = guid;
        this.name = name;
        this.portCount = portCount;
        this.settings = settings;
        this.loop = loop;
        this.listener = listener;
        this.tap = tap;
        this.tlsWork = tlsWork;
        this.stager = new TableStager(portCount);
        this.backoff = new Backoff(settings.initialBackoffMs(), settings.maxBackoffMs(), random);
        PortRecord[] initial = new PortRecord[portCount + 1];
        for (int p = 1; p <= portCount; p++) {
            initial[p] = PortRecord.down(p);
        }
        for (PortRecord r : ports) {
            if (r.port() < 1 || r.port() > portCount) {
                throw new IllegalArgumentException("switch " + Guids.format(guid) + ": port " + r.port() + " outside [1, "
                        + portCount + "]");
            }
            initial[r.port()] = r;
        }
        this.ports = initial;
        this.tls = settings.tls() == null ? null
                : TlsContexts.client(settings.tls(), settings.tlsProvider().engine(settings.tls()));
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, settings.connectTimeoutMs())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
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
                            ch.pipeline().addLast("idle", helloReplyTimeout());
                        } // with TLS, the HELLO_REPLY timeout starts when the TLS handshake completes (tlsHandshakeDone)
                        ch.pipeline()
                                .addLast("frames", new FrameDecoder(settings.maxFrameBytes()))
                                .addLast("decoder", new MessageDecoder())
                                .addLast("encoder", MessageEncoder.INSTANCE);
                        if (tap != null) {
                            ch.pipeline().addLast("tap", tap.newHandler());
                        }
                        ch.pipeline().addLast("agent", new Connection());
                    }
                });
    }

    // ---- public API (any thread) --------------------------------------------------------------

    public long guid() {
        return guid;
    }

    public String name() {
        return name;
    }

    public int portCount() {
        return portCount;
    }

    public State state() {
        return state;
    }

    /** The table in force (the last applied commit), never {@code null}. */
    public AppliedTable table() {
        return table;
    }

    /**
     * The incarnation of the current (or last) run, 0 before the first start. Every start takes a
     * higher one: its start time in ms × 1000, or one above the previous incarnation when that is not
     * lower (see {@link #nextIncarnation}).
     */
    public long incarnation() {
        return incarnation;
    }

    /**
     * Makes every later start of this agent take an incarnation above {@code previousIncarnation}: call
     * it (before {@link #start}) when this object replaces an earlier agent of the same switch in this
     * JVM, with that agent's {@link #incarnation()}. Two objects started within the same millisecond
     * would otherwise both start from the clock, and the daemon lets a restarted agent take over the
     * switch's session only with a strictly higher incarnation ({@code docs/protocol.md}, 3.1).
     */
    public void continueAfter(long previousIncarnation) {
        loop.execute(() -> incarnationFloor = Math.max(incarnationFloor, previousIncarnation));
    }

    /**
     * The incarnation of a start at {@code nowMillis} when the highest earlier one is {@code previous}:
     * the start time in ms × 1000, so that an agent process restarted later (a new JVM, knowing nothing
     * of its predecessor) starts higher; or {@code previous + 1} when that is not lower (restarts within
     * one millisecond, a wall clock set back). The factor 1000 leaves room for a thousand restarts per
     * millisecond before the incarnations run ahead of the clock.
     */
    static long nextIncarnation(long previous, long nowMillis) {
        return Math.max(previous + 1, nowMillis * 1000);
    }

    /** The daemon's id from the last HELLO_REPLY, or 0. */
    public long daemonId() {
        return daemonId;
    }

    /** A snapshot of the port records, index = port number (index 0 unused). */
    public List<PortRecord> ports() {
        PortRecord[] p = ports;
        List<PortRecord> list = new ArrayList<>(portCount);
        for (int i = 1; i < p.length; i++) {
            list.add(p[i]);
        }
        return list;
    }

    public long blocksReceived() {
        return blocksReceived.get();
    }

    public long commitsApplied() {
        return commitsApplied.get();
    }

    public long commitsRefused() {
        return commitsRefused.get();
    }

    /** The highest manager term seen (0 without hot-standby managers). */
    public long highestManagerTerm() {
        return highestTerm;
    }

    /** Completed handshakes since construction. */
    public long handshakes() {
        return handshakes.get();
    }

    /** TLS handshakes since construction that resumed an earlier session (a ticket) instead of a full one (BoringSSL only). */
    public long tlsResumptions() {
        return tlsResumptions.get();
    }

    /** The last complete failure-detector configuration, or {@code null}. */
    public RingAssignment detectorRing() {
        return detectorRing;
    }

    /** Accept DETECTOR_CONFIG and hand complete rings to {@code l} ({@code null}: refuse it). */
    public void detectorListener(DetectorConfigListener l) {
        detectorListener = l;
    }

    /**
     * Whether this agent takes its ring as a window (DETECTOR_WINDOW, asking for other members with
     * DETECTOR_LOOKUP); true by default, off only to play an agent that predates it (the daemon then sends
     * the whole ring in DETECTOR_CONFIG chunks). Takes effect at the next connection.
     */
    public void detectorWindowForm(boolean on) {
        detectorWindow = on;
    }

    /**
     * Asks the daemon for the addresses of ring members {@code members} of epoch {@code epoch} (answered with
     * DETECTOR_PEERS, handed to the detector listener); nothing is sent while the session is not active. Any
     * thread.
     */
    public void lookupDetectorPeers(long epoch, int[] members) {
        int[] copy = members.clone();
        loop.execute(() -> {
            if (state != State.ACTIVE) {
                return;
            }
            for (int from = 0; from < copy.length; from += Protocol.MAX_LOOKUP_MEMBERS) {
                int[] part = Arrays.copyOfRange(copy, from, Math.min(copy.length, from + Protocol.MAX_LOOKUP_MEMBERS));
                channel.write(new Message.DetectorLookup(takeTxid(), epoch, part));
            }
            channel.flush();
        });
    }

    /**
     * The UDP port this agent's failure-detector member listens on (with a detector listener): after each
     * PORT_INFO the agent tells the daemon, with the address its session comes from, in DETECTOR_ENDPOINT.
     * 0 (the default): it says nothing and the daemon uses the session's address and its configured agent port.
     */
    public void detectorPort(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port);
        }
        detectorPort = port;
    }

    /**
     * Connects from {@code address} (set before {@link #start}): the management interface of a switch with
     * several, or distinct loopback addresses for simulated switches.
     */
    public void bindFrom(InetAddress address) {
        localAddress = address == null ? null : new InetSocketAddress(address, 0);
    }

    /** The address the agent connects from, or {@code null} for the system's choice. */
    public InetAddress boundAddress() {
        InetSocketAddress a = localAddress;
        return a == null ? null : a.getAddress();
    }

    /** Leaves the running state and cancels a pending reconnect (on the agent's loop). */
    private void stopReconnecting() {
        running = false;
        if (reconnectTimer != null) {
            reconnectTimer.cancel(false);
            reconnectTimer = null;
        }
    }

    /** Starts connecting (with a new incarnation); no effect when already running. */
    public Future<Void> start() {
        Promise<Void> done = loop.newPromise();
        loop.execute(() -> {
            if (!running) {
                running = true;
                incarnation = nextIncarnation(Math.max(incarnation, incarnationFloor), System.currentTimeMillis());
                backoff.reset();
                connect();
            }
            done.setSuccess(null);
        });
        return done;
    }

    /** Stops: closes the connection and stops reconnecting. The table stays in force. */
    public Future<Void> stop() {
        Promise<Void> done = loop.newPromise();
        loop.execute(() -> {
            stopReconnecting();
            stager.clear();
            if (channel != null) {
                channel.close().addListener(f -> done.setSuccess(null));
            } else {
                done.setSuccess(null);
            }
            setState(State.STOPPED);
        });
        return done;
    }

    /**
     * The switch lost its forwarding state (a power cycle or an ASIC reset): the agent holds the empty table
     * from now on (only while stopped; the next HELLO says so).
     */
    public void clearTable() {
        loop.execute(() -> {
            if (!running) {
                table = AppliedTable.EMPTY;
                stager.clear();
            }
        });
    }

    /** Replaces one port's record; when it changed and the agent is active, reports it with PORT_STATUS. */
    public void setPort(PortRecord record) {
        if (record.port() < 1 || record.port() > portCount) {
            throw new IllegalArgumentException(Guids.format(guid) + ": port " + record.port() + " outside [1, " + portCount + "]");
        }
        loop.execute(() -> {
            PortRecord[] current = ports;
            if (current[record.port()].equals(record)) {
                return;
            }
            PortRecord[] next = current.clone();
            next[record.port()] = record;
            ports = next;
            if (state == State.ACTIVE) {
                channel.writeAndFlush(new Message.PortStatus(takeTxid(), List.of(record)));
            }
        });
    }

    @Override
    public String toString() {
        return "agent " + Guids.format(guid) + " (" + name + ")";
    }

    // ---- connection (event loop) --------------------------------------------------------------

    private void setState(State s) {
        if (state != s) {
            state = s;
            if (listener != null) {
                listener.stateChanged(this, s);
            }
        }
    }

    private int takeTxid() {
        nextTxid = Protocol.nextTxid(nextTxid);
        return nextTxid;
    }

    private void connect() {
        reconnectTimer = null;
        if (!running) {
            return;
        }
        setState(State.CONNECTING);
        handshakeDone = false;
        InetSocketAddress from = localAddress;
        InetSocketAddress to = redirect != null ? redirect : settings.managers().get(managerIndex);
        redirect = null;
        connectedTo = to;
        ChannelFuture f = from == null ? bootstrap.connect(to) : bootstrap.connect(to, from);
        channel = f.channel();
        f.addListener((ChannelFutureListener) cf -> {
            if (!cf.isSuccess()) {
                LOG.debug("{}: connect to {} failed: {}", this, to, cf.cause().toString());
                // channelInactive is not fired for a channel that never connected
                if (channel == cf.channel()) {
                    channel = null;
                    scheduleReconnect();
                }
            }
        });
    }

    /** The manager this agent connects to now (or last did). */
    private InetSocketAddress target() {
        return connectedTo != null ? connectedTo : settings.managers().get(managerIndex);
    }

    /**
     * A standby's answer to HELLO: {@code message} is the active manager's {@code HOST:PORT}, or empty when it
     * knows none. A usable address becomes the next connect, made at once; a known manager's address also
     * moves the place in the list, so that the walk resumes after the leader when it fails.
     */
    private void redirected(String message) {
        Optional<InetSocketAddress> to = parseRedirect(message);
        if (to.isEmpty() || redirectsInRow >= MAX_REDIRECTS_IN_ROW) {
            return;
        }
        redirectsInRow++;
        redirect = to.get();
        List<InetSocketAddress> managers = settings.managers();
        for (int i = 0; i < managers.size(); i++) {
            if (managers.get(i).getPort() == redirect.getPort() && managers.get(i).getHostString().equals(redirect.getHostString())) {
                managerIndex = i;
            }
        }
    }

    /** {@code HOST:PORT} of a NOT_LEADER message (a bracketed IPv6 host too), or empty for anything else. */
    static Optional<InetSocketAddress> parseRedirect(String message) {
        int colon = message == null ? -1 : message.lastIndexOf(':');
        if (colon <= 0 || colon == message.length() - 1 || message.length() > 260) {
            return Optional.empty();
        }
        String host = message.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty() || !host.matches("[A-Za-z0-9._:-]+")) {
            return Optional.empty();
        }
        String port = message.substring(colon + 1);
        if (port.length() > 5 || !port.chars().allMatch(Character::isDigit)) {
            return Optional.empty();
        }
        int p = Integer.parseInt(port);
        if (p < 1 || p > 65535) {
            return Optional.empty();
        }
        return Optional.of(InetSocketAddress.createUnresolved(host, p));
    }

    private void scheduleReconnect() {
        if (!running) {
            setState(State.STOPPED);
            return;
        }
        if (redirect != null) {
            // a standby named the active manager: go there now, not after a round over the list
            setState(State.WAITING);
            reconnectTimer = loop.schedule(this::connect, 0, TimeUnit.MILLISECONDS);
            return;
        }
        int managers = settings.managers().size();
        if (managers > 1 && !handshakeDone) {
            // a dead manager or a standby (which refuses HELLO): try the next one at once, and back off only
            // after a whole round, so that a failover costs one round of connects rather than a backoff each
            managerIndex = (managerIndex + 1) % managers;
            if (managerIndex != 0) {
                setState(State.WAITING);
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
        setState(State.WAITING);
        LOG.debug("{}: reconnecting in {} ms (attempt {})", this, delay, backoff.attempts());
        reconnectTimer = loop.schedule(this::connect, delay, TimeUnit.MILLISECONDS);
    }

    /** Closes a connection whose HELLO_REPLY does not come within the handshake timeout. */
    private IdleStateHandler helloReplyTimeout() {
        return new IdleStateHandler(settings.handshakeTimeoutMs(), 0, 0, TimeUnit.MILLISECONDS);
    }

    private Hello hello() {
        AppliedTable t = table;
        return new Hello(takeTxid(), Protocol.MIN_VERSION, Protocol.MAX_VERSION, guid, incarnation, portCount,
                settings.maxFrameBytes(), t.version(), t.length(), t.hash(), name,
                settings.helloFeatures()
                        | (detectorWindow && detectorListener != null && detectorPort != 0 ? Protocol.FEATURE_DETECTOR_WINDOW
                        // slots dead at start come appended to the window: only an agent whose frames can hold them
                        | (settings.maxFrameBytes() >= Protocol.MIN_MAX_FRAME_DEAD_AT_START
                                ? Protocol.FEATURE_DETECTOR_SLOTS : 0) : 0));
    }

    /** The handler of one connection; a new one per connect. */
    private final class Connection extends SimpleChannelInboundHandler<Message> {
        private String closeCause;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (!running || channel != ctx.channel()) {
                ctx.close();
                return;
            }
            setState(State.HELLO_SENT);
            if (tls == null) {
                ctx.writeAndFlush(hello());
            } // else HELLO goes once the daemon is authenticated (tlsHandshakeDone)
        }

        /** Says HELLO to an authenticated daemon; anything else ends the connection (and is retried with backoff). */
        private void tlsHandshakeDone(ChannelHandlerContext ctx, SslHandshakeCompletionEvent event) {
            if (!event.isSuccess()) {
                closeCause = "TLS handshake with the daemon failed: " + event.cause();
                LOG.warn("{}: {}", SwitchAgent.this, closeCause);
                ctx.close();
                return;
            }
            X509Certificate peer;
            try {
                peer = (X509Certificate) ctx.pipeline().get(SslHandler.class).engine().getSession()
                        .getPeerCertificates()[0];
            } catch (SSLPeerUnverifiedException e) {
                closeCause = "the daemon presented no certificate";
                LOG.warn("{}: {}", SwitchAgent.this, closeCause);
                ctx.close();
                return;
            }
            if (!FabricIdentity.isDaemon(peer)) {
                closeCause = "the peer at " + target() + " presented '" + peer.getSubjectX500Principal().getName()
                        + "', not the daemon's certificate (" + FabricIdentity.DAEMON_URI + ")";
                LOG.warn("{}: {}", SwitchAgent.this, closeCause);
                ctx.close();
                return;
            }
            if (TlsContexts.resumed(ctx.pipeline().get(SslHandler.class).engine())) {
                tlsResumptions.incrementAndGet();
            }
            if (state == State.HELLO_SENT && channel == ctx.channel()) {
                ctx.pipeline().addBefore("frames", "idle", helloReplyTimeout());
                ctx.writeAndFlush(hello());
            }
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
            if (state == State.HELLO_SENT) {
                if (msg instanceof HelloReply reply) {
                    if (reply.version() < Protocol.MIN_VERSION || reply.version() > Protocol.MAX_VERSION) {
                        throw new ProtocolException(ErrorCode.UNSUPPORTED_VERSION, msg.type().code(), msg.txid(),
                                "daemon chose version " + reply.version() + ", agent speaks " + Protocol.MIN_VERSION + ".."
                                        + Protocol.MAX_VERSION);
                    }
                    daemonId = reply.daemonId();
                    highestTerm = Math.max(highestTerm, reply.managerTerm());
                    ctx.pipeline().replace("idle", "idle",
                            new IdleStateHandler(3L * reply.echoIntervalMs(), 0, 0, TimeUnit.MILLISECONDS));
                    backoff.reset();
                    handshakeDone = true;
                    redirectsInRow = 0;
                    detectorAssembler.reset();
                    handshakes.incrementAndGet();
                    setState(State.ACTIVE);
                    PortRecord[] p = ports;
                    List<PortRecord> all = new ArrayList<>(portCount);
                    for (int i = 1; i <= portCount; i++) {
                        all.add(p[i]);
                    }
                    ctx.writeAndFlush(new Message.PortInfo(takeTxid(), all));
                    int udp = detectorPort;
                    if (udp != 0 && detectorListener != null
                            && ctx.channel().localAddress() instanceof InetSocketAddress local) {
                        ctx.writeAndFlush(new Message.DetectorEndpoint(takeTxid(), local.getAddress(), udp));
                    }
                } else if (msg instanceof ErrorReport error) {
                    refused(ctx, error);
                } else {
                    throw unexpected(msg);
                }
                return;
            }
            if (state != State.ACTIVE) {
                return;
            }
            if (msg instanceof LftBlock block) {
                blocksReceived.incrementAndGet();
                try {
                    stager.stage(block);
                } catch (ProtocolException e) {
                    ctx.writeAndFlush(e.toMessage());
                }
            } else if (msg instanceof Message.LftBlocks run) {
                if (!settings.lftRuns()) {
                    // an agent that predates LFT_BLOCKS knows no type 0x14: what such an agent answers
                    ctx.writeAndFlush(new ErrorReport(run.txid(), ErrorCode.UNKNOWN_TYPE.code(),
                            MessageType.LFT_BLOCKS.code(), "unknown message type 0x14"));
                    ctx.close();
                    return;
                }
                blocksReceived.addAndGet(run.blockCount());
                try {
                    stager.stage(run);
                } catch (ProtocolException e) {
                    ctx.writeAndFlush(e.toMessage());
                }
            } else if (msg instanceof LftCommit commit) {
                try {
                    if (commit.managerTerm() < highestTerm) {
                        stager.clear();
                        throw new ProtocolException(ErrorCode.STALE_TERM, commit.type().code(), commit.txid(),
                                "commit of v" + commit.version() + " from a manager of term " + commit.managerTerm()
                                        + ", but a manager of term " + highestTerm + " has been seen: refused");
                    }
                    highestTerm = commit.managerTerm();
                    AppliedTable next = stager.commit(table, commit);
                    table = next;
                    commitsApplied.incrementAndGet();
                    ctx.writeAndFlush(new CommitAck(commit.txid(), next.version(), next.length(), next.hash(),
                            settings.vcRules() ? next.rulesHash() : 0));
                    if (listener != null) {
                        listener.tableApplied(SwitchAgent.this, next);
                    }
                } catch (ProtocolException e) {
                    commitsRefused.incrementAndGet();
                    LOG.debug("{}: commit refused: {}", SwitchAgent.this, e.getMessage());
                    ctx.writeAndFlush(e.toMessage());
                }
            } else if (msg instanceof Message.VcRuleSet rules) {
                if (!settings.vcRules()) {
                    // an agent that predates VC rules knows no type 0x0E: what such an agent answers
                    ctx.writeAndFlush(new ErrorReport(rules.txid(), ErrorCode.UNKNOWN_TYPE.code(),
                            MessageType.VC_RULES.code(), "unknown message type 0x0e"));
                    ctx.close();
                    return;
                }
                try {
                    stager.stage(rules);
                } catch (ProtocolException e) {
                    ctx.writeAndFlush(e.toMessage());
                }
            } else if (msg instanceof EchoRequest echo) {
                ctx.writeAndFlush(new EchoReply(echo.txid(), echo.timestamp()));
            } else if (msg instanceof DetectorConfig config) {
                detectorConfig(ctx, config);
            } else if (msg instanceof Message.DetectorWindow window) {
                detectorWindow(ctx, window);
            } else if (msg instanceof Message.DetectorPeers peers) {
                detectorPeers(peers);
            } else if (msg instanceof ErrorReport error) {
                if (error.fatal()) {
                    refused(ctx, error);
                } else {
                    LOG.debug("{}: daemon reported {}", SwitchAgent.this, error);
                }
            } else if (msg instanceof Message.Ack || msg instanceof EchoReply) {
                // acknowledgements of PORT_INFO / PORT_STATUS need no action
            } else {
                throw unexpected(msg);
            }
        }

        private void detectorConfig(ChannelHandlerContext ctx, DetectorConfig config) {
            DetectorConfigListener l = detectorListener;
            if (l == null) {
                ctx.writeAndFlush(new ErrorReport(config.txid(), ErrorCode.UNSUPPORTED_FEATURE.code(),
                        MessageType.DETECTOR_CONFIG.code(), "this agent has no failure detector"));
                return;
            }
            Optional<RingAssignment> complete = detectorAssembler.add(config);
            if (complete.isEmpty()) {
                ctx.writeAndFlush(new Message.Ack(config.txid(), MessageType.DETECTOR_CONFIG));
                return;
            }
            detectorRing = complete.get();
            CompletionStage<Void> running;
            try {
                running = l.configured(SwitchAgent.this, complete.get());
            } catch (RuntimeException e) {
                // a ring this agent cannot run (two members at one address...) costs its detector, not its session
                running = CompletableFuture.failedFuture(e);
            }
            // the last chunk's ACK tells the daemon this member runs: it ends the daemon's start-up grace
            running.whenComplete((ok, failure) -> {
                if (failure == null) {
                    ctx.writeAndFlush(new Message.Ack(config.txid(), MessageType.DETECTOR_CONFIG));
                } else {
                    ctx.writeAndFlush(new ErrorReport(config.txid(), ErrorCode.DETECTOR_UNAVAILABLE.code(),
                            MessageType.DETECTOR_CONFIG.code(), "failure detector did not start: " + failure.getMessage()));
                }
            });
        }

        private void detectorWindow(ChannelHandlerContext ctx, Message.DetectorWindow window) {
            DetectorConfigListener l = detectorListener;
            if (l == null) {
                ctx.writeAndFlush(new ErrorReport(window.txid(), ErrorCode.UNSUPPORTED_FEATURE.code(),
                        MessageType.DETECTOR_WINDOW.code(), "this agent has no failure detector"));
                return;
            }
            RingAssignment ring = RingAssignment.of(window);
            detectorRing = ring;
            CompletionStage<Void> running;
            try {
                running = l.configured(SwitchAgent.this, ring);
            } catch (RuntimeException e) {
                running = CompletableFuture.failedFuture(e);
            }
            // the ACK tells the daemon this member runs: it ends the daemon's start-up grace
            running.whenComplete((ok, failure) -> {
                if (failure == null) {
                    ctx.writeAndFlush(new Message.Ack(window.txid(), MessageType.DETECTOR_WINDOW));
                } else {
                    ctx.writeAndFlush(new ErrorReport(window.txid(), ErrorCode.DETECTOR_UNAVAILABLE.code(),
                            MessageType.DETECTOR_WINDOW.code(), "failure detector did not start: " + failure.getMessage()));
                }
            });
        }

        /** Addresses of ring members: only those of the ring this agent runs count; others are stale. */
        private void detectorPeers(Message.DetectorPeers peers) {
            RingAssignment ring = detectorRing;
            DetectorConfigListener l = detectorListener;
            if (ring == null || l == null || ring.epoch() != peers.epoch()) {
                LOG.debug("{}: ignoring {} (ring epoch {})", SwitchAgent.this, peers, ring == null ? 0 : ring.epoch());
                return;
            }
            for (Message.DetectorPeer p : peers.members()) {
                if (p.index() >= ring.memberCount()) {
                    throw new ProtocolException(ErrorCode.MALFORMED, MessageType.DETECTOR_PEERS.code(), peers.txid(),
                            "DETECTOR_PEERS: member " + p.index() + " outside the ring of " + ring.memberCount());
                }
            }
            l.peers(SwitchAgent.this, peers.epoch(), peers.members());
        }

        private void refused(ChannelHandlerContext ctx, ErrorReport error) {
            closeCause = "daemon sent " + error;
            if (error.errorCode().orElse(null) == ErrorCode.NOT_LEADER) {
                if (state == State.HELLO_SENT) {
                    redirected(error.message());
                }
                LOG.debug("{}: {}", SwitchAgent.this, closeCause);
            } else if (error.errorCode().orElse(null) == ErrorCode.SHUTTING_DOWN) {
                LOG.debug("{}: {}", SwitchAgent.this, closeCause);
                backoff.expectReturn(RETURN_PROBE_MS, RETURN_PROBES);
            } else {
                LOG.info("{}: {}", SwitchAgent.this, closeCause);
            }
            ctx.close();
        }

        private ProtocolException unexpected(Message msg) {
            return new ProtocolException(ErrorCode.UNEXPECTED_MESSAGE, msg.type().code(), msg.txid(),
                    msg.type() + " not allowed in state " + state);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof SslHandshakeCompletionEvent done) {
                tlsHandshakeDone(ctx, done);
                return;
            }
            if (evt instanceof IdleStateEvent) {
                closeCause = state == State.ACTIVE ? "daemon silent for 3 echo intervals" : "no HELLO_REPLY in time";
                LOG.info("{}: {}, reconnecting", SwitchAgent.this, closeCause);
                ctx.close();
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof ProtocolException pe) {
                closeCause = pe.code() + ": " + pe.getMessage();
                LOG.warn("{}: protocol violation by the daemon: {}", SwitchAgent.this, closeCause);
                if (ctx.channel().isActive()) {
                    ctx.writeAndFlush(pe.toMessage()).addListener(ChannelFutureListener.CLOSE);
                } else {
                    ctx.close();
                }
            } else {
                boolean tlsFailure = cause instanceof io.netty.handler.codec.DecoderException
                        && cause.getCause() instanceof SSLException;
                closeCause = cause instanceof IOException ? cause.getMessage()
                        : tlsFailure ? "TLS: " + cause.getCause().getMessage() : cause.toString();
                if (!(cause instanceof IOException) && !tlsFailure) {
                    LOG.error("{}: internal error", SwitchAgent.this, cause);
                }
                ctx.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            stager.clear();
            if (channel == ctx.channel()) {
                channel = null;
                LOG.debug("{}: disconnected ({})", SwitchAgent.this, closeCause == null ? "closed by the daemon" : closeCause);
                scheduleReconnect();
            }
        }
    }
}
