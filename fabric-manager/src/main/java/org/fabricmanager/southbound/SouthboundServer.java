package org.fabricmanager.southbound;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's TCP listener for switch agents. Each connection gets the pipeline
 * [TLS: {@link TransportGuard}, replaced by the {@code SslHandler}; {@link HandshakeAdmission}] → idle timeout → {@link FrameDecoder}
 * (maximum length) → {@link MessageDecoder} → {@link MessageEncoder} → [TLS: {@link CertificateIdentityHandler}] →
 * {@link SessionHandshake} → {@link AgentSession}, and reports
 * to one {@link SouthboundListener}. Peers refused before they become a session are counted by
 * {@link SouthboundRejections}.
 */
public final class SouthboundServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SouthboundServer.class);
    /** Counter of accepted TCP connections: about one per switch at a start, unless connections are lost and retried. */
    public static final String CONNECTIONS_METER = "fabric.southbound.connections";
    /** Gauge of TLS handshakes, tagged {@code phase}: {@code active} (in progress) or {@code waiting} (queued). */
    public static final String HANDSHAKES_METER = "fabric.southbound.tls.handshakes";

    private final SouthboundSettings settings;
    /** The last handler of a connection: a switch's session, or a standby's redirect. */
    /** Adds a connection's session handlers after its codec: an agent session's, or a standby's redirect. */
    private final Consumer<ChannelPipeline> sessions;
    /** Reader idle time of a connection before its session sets its own (a redirect's whole life). */
    private final long idleMs;
    private final String role;
    private final EventLoopGroup boss = new NioEventLoopGroup(1, new DefaultThreadFactory("fm-southbound-accept", true));
    private final EventLoopGroup workers;
    private final ChannelGroup channels = new DefaultChannelGroup("southbound", GlobalEventExecutor.INSTANCE);
    private final SouthboundRejections rejections;
    private final HandshakeAdmission admission;
    /** Completed TLS handshakes, full and resumed (secure daemons). */
    private final TlsHandshakeCounter handshakeKinds;
    /** Runs TLS handshake work (secure daemons); as many threads as I/O threads, idle ones released. */
    private final ThreadPoolExecutor handshakeWork;
    private final Counter connections;
    /**
     * The handshake gauges this server registered, removed at close: a standby opens a new server in the same
     * registry after each term it led, and Micrometer would keep the first server's gauges (reading a closed
     * server's admission) instead of registering the new ones.
     */
    private final List<Gauge> gauges = new ArrayList<>(2);
    private final MeterRegistry registry;
    private Channel serverChannel;
    private boolean closed;

    /** A server whose refused peers are counted in memory only. */
    public SouthboundServer(SouthboundSettings settings, SouthboundListener listener) {
        this(settings, listener, null);
    }

    /** @param registry where {@value SouthboundRejections#METER} is counted ({@code null}: nowhere) */
    public SouthboundServer(SouthboundSettings settings, SouthboundListener listener, MeterRegistry registry) {
        this(settings, registry, settings.idleTimeoutMs(), "southbound", null, null, listener);
    }

    private SouthboundServer(SouthboundSettings settings, MeterRegistry registry, long idleMs, String role,
                             Supplier<String> leader, ParkedHellos parked, SouthboundListener listener) {
        this.settings = settings;
        this.idleMs = idleMs;
        this.role = role;
        this.workers = new NioEventLoopGroup(Math.max(1, settings.ioThreads()),
                new DefaultThreadFactory("fm-southbound-io", true));
        this.rejections = new SouthboundRejections(registry, SouthboundRejections.DEFAULT_INTERVAL_MS,
                System::currentTimeMillis, boss);
        this.admission = new HandshakeAdmission(settings.tlsAdmission(), rejections, System::nanoTime);
        this.handshakeKinds = settings.secure() ? new TlsHandshakeCounter(registry) : null;
        int tlsThreads = Math.max(1, settings.ioThreads());
        // unbounded queue, bounded in practice: only admitted handshakes (tlsHandshakesAtOnce) submit work
        this.handshakeWork = new ThreadPoolExecutor(tlsThreads, tlsThreads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), new DefaultThreadFactory("fm-southbound-tls", true));
        handshakeWork.allowCoreThreadTimeOut(true);
        this.registry = registry;
        if (registry != null) {
            connections = Counter.builder(CONNECTIONS_METER).description("TCP connections accepted from agents (or anyone)")
                    .register(registry);
            if (settings.secure()) {
                gauges.add(Gauge.builder(HANDSHAKES_METER, admission, HandshakeAdmission::active).tag("phase", "active")
                        .description("TLS handshakes in progress").register(registry));
                gauges.add(Gauge.builder(HANDSHAKES_METER, admission, HandshakeAdmission::waiting).tag("phase", "waiting")
                        .description("connections waiting for a TLS handshake slot").register(registry));
            }
        } else {
            connections = null;
        }
        SouthboundRejections refused = this.rejections;
        this.sessions = listener != null ? pipeline -> new AgentSession(settings, listener, refused).install(pipeline)
                : pipeline -> pipeline.addLast("session", new NotLeaderResponder(leader, parked, refused));
    }

    /** TLS handshakes in progress now (0 on a plaintext daemon). */
    public int tlsHandshakesActive() {
        return admission.active();
    }

    /** TLS handshakes completed by this server that resumed an agent's session (0 on a plaintext daemon). */
    public long tlsResumed() {
        return handshakeKinds == null ? 0 : handshakeKinds.resumed();
    }

    /** TLS handshakes completed by this server in full (0 on a plaintext daemon). */
    public long tlsFull() {
        return handshakeKinds == null ? 0 : handshakeKinds.full();
    }

    /** Connections waiting for a TLS handshake slot now (0 on a plaintext daemon). */
    public int tlsHandshakesWaiting() {
        return admission.waiting();
    }

    /**
     * The southbound listener of a hot-standby manager that does not lead: the same address, TLS and
     * limits, answering every HELLO with {@code ERROR NOT_LEADER} and the active manager's address
     * ({@link NotLeaderResponder}, docs/protocol.md section 3.16). One I/O thread: it holds no session.
     *
     * @param leader the active manager's southbound {@code HOST:PORT}, {@code null} while unknown
     * @param parked where HELLOs wait while {@code leader} is {@code null}
     */
    public static SouthboundServer redirecting(SouthboundSettings settings, Supplier<String> leader,
                                               ParkedHellos parked, MeterRegistry registry) {
        return new SouthboundServer(settings.withIoThreads(1), registry, settings.handshakeTimeoutMs(), "standby southbound",
                leader, parked, null);
    }

    /** The peers refused so far. */
    public SouthboundRejections rejections() {
        return rejections;
    }

    /**
     * Binds the listener.
     *
     * @return the address actually bound (with the chosen port when the configured port is 0)
     */
    public InetSocketAddress start() throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        if (connections != null) {
                            connections.increment();
                        }
                        if (settings.secure()) {
                            // nothing is read beyond the first TLS record's header until its handshake is admitted (HandshakeAdmission)
                            ch.config().setAutoRead(false);
                            ch.pipeline().addLast("guard", new TransportGuard(settings.tls(),
                                    settings.tlsAdmission().timeoutMs(), rejections, handshakeWork)).addLast("admission", admission.gate())
                                    .addLast("tls-kinds", handshakeKinds);
                        }
                        ch.pipeline()
                                .addLast("idle", new IdleStateHandler(idleMs, 0, 0, TimeUnit.MILLISECONDS))
                                .addLast("frames", new FrameDecoder(settings.maxFrameBytes()))
                                .addLast("decoder", new MessageDecoder())
                                .addLast("encoder", MessageEncoder.INSTANCE);
                        sessions.accept(ch.pipeline());
                    }
                });
        serverChannel = b.bind(settings.bindAddress(), settings.port()).sync().channel();
        InetSocketAddress bound = (InetSocketAddress) serverChannel.localAddress();
        AcceptFailures.install(serverChannel, role + " " + settings.bindAddress() + ":" + bound.getPort());
        LOG.info("{} listening on {}:{} ({})", role, settings.bindAddress(), bound.getPort(), settings.secure()
                ? "mutual TLS 1.3: agents authenticate with certificates naming their GUID"
                : "plaintext: any host that reaches this port can impersonate any switch");
        return bound;
    }

    /**
     * Unbinds the listening port and keeps the connections: a standby that was elected frees its port for its
     * manager and then tells the agents it held where that manager listens.
     */
    public void stopAccepting() {
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
    }

    /** Stops accepting, closes every session and releases the I/O threads; again, nothing. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        boolean sessions = false;
        for (Channel ch : channels) {
            AgentSession session = ch.pipeline().get(AgentSession.class); // none on a standby
            if (session != null) {
                session.shutdown();
                sessions = true;
            }
        }
        if (sessions) {
            // sessions say SHUTTING_DOWN and close; a standby's redirects are cut at once (its port is
            // wanted by the manager starting in this process)
            channels.newCloseFuture().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        handshakeWork.shutdownNow();
        for (Gauge g : gauges) {
            registry.remove(g);
        }
        gauges.clear();
    }
}
