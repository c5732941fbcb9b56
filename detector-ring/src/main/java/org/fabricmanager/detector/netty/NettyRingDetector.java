package org.fabricmanager.detector.netty;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.fabricmanager.detector.AddressResolver;
import org.fabricmanager.detector.DetectorConfig;
import org.fabricmanager.detector.DetectorListener;
import org.fabricmanager.detector.DetectorMetrics;
import org.fabricmanager.detector.MemberDependencies;
import org.fabricmanager.detector.MembershipSnapshot;
import org.fabricmanager.detector.ProcessHealth;
import org.fabricmanager.detector.RingDetector;
import org.fabricmanager.detector.RingMember;
import org.fabricmanager.detector.RingTransport;
import org.fabricmanager.detector.TimerHandle;
import org.fabricmanager.detector.VacantAddress;
import org.fabricmanager.detector.message.RingMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ring member over UDP: binds the member's configured address, runs its {@link RingMember} on
 * the channel's event loop (so the state machine stays single-threaded: datagrams, timers and the
 * calls of this class all run there) and sends each message as one datagram. A datagram that does
 * not decode, names an impossible sender or comes from another ring is logged (rate-limited) and
 * counted in {@code fabric.detector.datagrams.malformed}; it never disturbs the member.
 *
 * <p>Use {@link #start(DetectorConfig, DetectorListener, MeterRegistry)} for a member with its own
 * single event-loop thread, or the overload taking an {@link EventLoopGroup} to run many members
 * (a switch simulator) on a shared group that {@link #close()} leaves running.
 *
 * <p>A member configured with only its ring window learns other members' addresses on demand: a message
 * for a member whose address it does not know waits in its {@link AddressBook} while the {@link AddressResolver}
 * asks, and is sent when {@link #learn} brings the address. A sealed datagram from a
 * member whose address is not known yet is authenticated by the ring key alone; once the address is known,
 * datagrams must come from it.
 */
public final class NettyRingDetector implements RingDetector {
    public static final String MALFORMED = "fabric.detector.datagrams.malformed";
    /** Counter of datagrams refused by authentication: bad or missing tag, replayed, implausible (tag {@code reason}). */
    public static final String REJECTED = "fabric.detector.rejected";
    private static final Logger log = LoggerFactory.getLogger(NettyRingDetector.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long CALL_TIMEOUT_SECONDS = 5;

    private final DetectorConfig config;
    private final MessageCodec codec;
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final Counter malformed;
    private final MeterRegistry registry;
    /** Seals and checks datagrams with the ring key; {@code null} for an unauthenticated ring. */
    private final DatagramSeal seal;
    private final ReplayWindow window;
    private long nextSequence = ReplayWindow.firstSequence(System.currentTimeMillis());
    private final Channel channel;
    private final EventLoop loop;
    private final RingMember member;
    /** Members in the ring. */
    private final int ringSize;
    /** The other members' addresses and the messages waiting for one (event loop only). */
    private final AddressBook addresses;
    private volatile boolean closed;
    private long lastWarnNanos = Long.MIN_VALUE;
    private long suppressedWarnings;

    private NettyRingDetector(DetectorConfig config, DetectorListener listener, MeterRegistry registry,
                              EventLoopGroup group, boolean ownsGroup, AddressResolver resolver, ProcessHealth process) {
        this.config = config;
        this.ringSize = config.size();
        this.addresses = new AddressBook(config, resolver);
        this.codec = new MessageCodec(config.size(), config.fingerprint());
        this.group = group;
        this.ownsGroup = ownsGroup;
        this.malformed = Counter.builder(MALFORMED)
                .description("datagrams dropped because they were not valid messages of this ring").register(registry);
        this.registry = registry;
        byte[] key = config.ringKey();
        this.seal = key == null ? null : new DatagramSeal(key);
        this.window = new ReplayWindow(config.size());
        // Created before the bind so that the first datagram finds it (it ignores input until started).
        this.member = new RingMember(config.self(), config.size(), config.parameters(), config.startMode(),
                new MemberDependencies(new UdpTransport(), listener, new DetectorMetrics(registry), process));
        // slots without a process yet: dead from the start, so nobody suspects them (before any input is handled)
        this.member.startDead(config.deadAtStart());
        InetSocketAddress local = config.address(config.self());
        ChannelFuture bound = new Bootstrap()
                .group(group)
                .channel(NioDatagramChannel.class)
                // The default datagram buffer (2 KiB) would truncate views; take whole datagrams.
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(65_536))
                .handler(new Inbound())
                .bind(local)
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IllegalStateException("member " + config.self() + ": cannot bind UDP " + local + ": "
                    + bound.cause(), bound.cause());
        }
        this.channel = bound.channel();
        this.loop = channel.eventLoop();
    }

    /**
     * Binds the member's address and starts it on a new single-thread event loop owned by the
     * detector (daemon thread {@code fabric-detector-<self>}).
     */
    public static NettyRingDetector start(DetectorConfig config, DetectorListener listener, MeterRegistry registry) {
        Objects.requireNonNull(config, "config");
        EventLoopGroup group = new NioEventLoopGroup(1, new DefaultThreadFactory("fabric-detector-" + config.self(), true));
        try {
            return start(config, listener, registry, group, true, AddressResolver.NONE, null);
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** Binds the member's address and starts it on {@code group}, which the caller owns and shuts down. */
    public static NettyRingDetector start(DetectorConfig config, DetectorListener listener, MeterRegistry registry,
                                          EventLoopGroup group) {
        return start(config, listener, registry, group, false, AddressResolver.NONE, null);
    }

    /**
     * As {@link #start(DetectorConfig, DetectorListener, MeterRegistry, EventLoopGroup)}, for a configuration
     * that carries only some addresses: {@code resolver} finds the others.
     */
    public static NettyRingDetector start(DetectorConfig config, DetectorListener listener, MeterRegistry registry,
                                          EventLoopGroup group, AddressResolver resolver) {
        return start(config, listener, registry, group, false, Objects.requireNonNull(resolver, "resolver"), null);
    }

    /**
     * As {@link #start(DetectorConfig, DetectorListener, MeterRegistry, EventLoopGroup, AddressResolver)}, for one of
     * several members of this process: {@code process} is the lateness they share ({@link ProcessHealth}).
     */
    public static NettyRingDetector start(DetectorConfig config, DetectorListener listener, MeterRegistry registry,
                                          EventLoopGroup group, AddressResolver resolver, ProcessHealth process) {
        return start(config, listener, registry, group, false, Objects.requireNonNull(resolver, "resolver"),
                Objects.requireNonNull(process, "process"));
    }

    private static NettyRingDetector start(DetectorConfig config, DetectorListener listener, MeterRegistry registry,
                                           EventLoopGroup group, boolean ownsGroup, AddressResolver resolver,
                                           ProcessHealth process) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(registry, "registry");
        NettyRingDetector detector = new NettyRingDetector(config, listener, registry, group, ownsGroup, resolver,
                process);
        detector.call(() -> {
            detector.addresses.prefetchOverlayPeers();
            detector.member.start();
            return null;
        });
        // A member on its own loop is a process's one member (an agent, the daemon): its start is news. Members on
        // a shared loop are hosted by the thousand (the simulator), whose host says so once.
        if (ownsGroup) {
            log.info("member {}: detector listening on UDP {} ({} members, {} overlay, {} mode)", config.self(),
                    detector.channel.localAddress(), config.size(), config.parameters().overlay().label(),
                    config.startMode());
        } else {
            log.debug("member {}: detector listening on UDP {} ({} members, {} overlay, {} mode)", config.self(),
                    detector.channel.localAddress(), config.size(), config.parameters().overlay().label(),
                    config.startMode());
        }
        return detector;
    }

    @Override
    public int self() {
        return config.self();
    }

    /** The address the member is bound to. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void reportLinkDown(int port) {
        checkPort(port);
        execute(() -> member.reportLinkDown(port));
    }

    @Override
    public void reportLinkUp(int port) {
        checkPort(port);
        execute(() -> member.reportLinkUp(port));
    }

    @Override
    public void endStartupGrace() {
        execute(member::endStartupGrace);
    }

    @Override
    public void learn(int member, InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        if (member < 0 || member >= ringSize) {
            throw new IllegalArgumentException("member " + member + " is outside the ring of " + ringSize);
        }
        execute(() -> {
            if (member == config.self()) {
                return;
            }
            for (RingMessage m : addresses.learn(member, address)) {
                sendNow(member, address, m);
            }
        });
    }

    /** The number of members whose address this member knows (the window, then whatever it learned). */
    public int knownAddresses() {
        return call(addresses::knownAddresses);
    }

    /** The members this one keeps anything about (configured, asked for, sent to or heard from): its memory's measure. */
    public int peerCount() {
        return call(addresses::size);
    }

    @Override
    public MembershipSnapshot snapshot() {
        return call(member::snapshot);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (loop.inEventLoop()) {
            // Called from a listener: waiting here for our own loop would deadlock, so finish asynchronously.
            member.stop();
            channel.close().addListener(f -> releaseGroup());
            return;
        }
        loop.submit(member::stop).awaitUninterruptibly(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        channel.close().awaitUninterruptibly(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Future<?> terminated = releaseGroup();
        if (terminated != null && !terminated.awaitUninterruptibly(CALL_TIMEOUT_SECONDS * 2, TimeUnit.SECONDS)) {
            log.warn("member {}: event loop did not stop within {} s", config.self(), CALL_TIMEOUT_SECONDS * 2);
        }
        if (ownsGroup) {
            log.info("member {}: detector stopped", config.self());
        } else {
            log.debug("member {}: detector stopped", config.self());
        }
    }

    private Future<?> releaseGroup() {
        return ownsGroup ? group.shutdownGracefully(0, 2, TimeUnit.SECONDS) : null;
    }

    private void checkPort(int port) {
        if (port < 0) {
            throw new IllegalArgumentException("member " + config.self() + ": negative port " + port);
        }
    }

    private void execute(Runnable action) {
        if (closed) {
            throw new IllegalStateException("member " + config.self() + ": detector is closed");
        }
        loop.execute(action);
    }

    private <T> T call(Callable<T> action) {
        if (closed) {
            throw new IllegalStateException("member " + config.self() + ": detector is closed");
        }
        try {
            if (loop.inEventLoop()) {
                return action.call();
            }
            return loop.submit(action).get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("member " + config.self() + ": interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("member " + config.self() + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("member " + config.self() + ": event loop did not answer within "
                    + CALL_TIMEOUT_SECONDS + " s", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("member " + config.self() + ": " + e, e);
        }
    }

    /** A datagram refused by authentication: counted by reason, logged rate-limited, never acted on. */
    private void reject(InetSocketAddress sender, String reason, String problem) {
        Counter.builder(REJECTED).tag("reason", reason)
                .description("detector datagrams refused by authentication (bad tag, replay, implausible incarnation)")
                .register(registry).increment();
        logBadDatagram(sender, problem);
    }

    /** Counts a datagram that is not a valid message of this ring and logs it ({@link #logBadDatagram}). */
    private void reportBadDatagram(InetSocketAddress sender, String problem) {
        malformed.increment();
        logBadDatagram(sender, problem);
    }

    /** Logs a bad datagram at warn at most every 10 s, at debug otherwise, so that garbage cannot flood the log. */
    private void logBadDatagram(InetSocketAddress sender, String problem) {
        long now = System.nanoTime();
        if (lastWarnNanos == Long.MIN_VALUE || now - lastWarnNanos >= WARN_INTERVAL_NANOS) {
            log.warn("member {}: dropped datagram from {}: {}{}", config.self(), sender, problem,
                    suppressedWarnings > 0 ? " (" + suppressedWarnings + " more dropped since the last warning)" : "");
            lastWarnNanos = now;
            suppressedWarnings = 0;
        } else {
            suppressedWarnings++;
            log.debug("member {}: dropped datagram from {}: {}", config.self(), sender, problem);
        }
    }

    /** Decodes datagrams and hands them to the member, on the event loop. */
    private final class Inbound extends SimpleChannelInboundHandler<DatagramPacket> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            RingMessage message;
            long sequence = 0;
            ByteBuf content = packet.content();
            if (seal != null) {
                sequence = seal.open(content);
                if (sequence < 0) {
                    reject(packet.sender(), "tag", "no valid tag for this ring's key (forged, of another epoch, or damaged)");
                    return;
                }
                content = DatagramSeal.message(content);
            }
            try {
                message = codec.decode(content);
            } catch (MalformedMessageException e) {
                reportBadDatagram(packet.sender(), e.getMessage());
                return;
            }
            InetSocketAddress expected = addresses.address(message.from());
            if (expected == null) {
                addresses.resolve(message.from());
                if (seal == null) {
                    reportBadDatagram(packet.sender(), "claims to be member " + message.from() + ", whose address is unknown");
                    return;
                }
            } else if (!expected.equals(packet.sender())) {
                reportBadDatagram(packet.sender(), "claims to be member " + message.from() + ", whose address is " + expected);
                return;
            }
            if (seal != null) {
                ReplayWindow.Verdict verdict = window.accept(message.from(), message.fromIncarnation(), sequence);
                if (verdict != ReplayWindow.Verdict.ACCEPTED) {
                    reject(packet.sender(), verdict.name().toLowerCase(Locale.ROOT),
                            "member " + message.from() + " datagram " + sequence + " " + verdict);
                    return;
                }
            }
            try {
                member.deliver(message);
            } catch (RuntimeException e) {
                log.error("member {}: failed to handle {} from member {}", config.self(), message, message.from(), e);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // UDP errors (an ICMP unreachable, a full buffer) concern one datagram, not the member.
            log.warn("member {}: UDP channel error: {}", config.self(), cause.toString());
        }
    }

    /** The member's window on the network: datagrams, the event loop's timers and System.nanoTime. */
    private final class UdpTransport implements RingTransport {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void send(int to, RingMessage message) {
            if (!channel.isActive()) {
                return;
            }
            InetSocketAddress address = addresses.address(to);
            if (address == null) {
                addresses.hold(to, message);
                return;
            }
            sendNow(to, address, message);
        }

        @Override
        public TimerHandle schedule(long delayNanos, Runnable action) {
            ScheduledFuture<?> future = loop.schedule(() -> {
                try {
                    action.run();
                } catch (RuntimeException e) {
                    log.error("member {}: timer action failed", config.self(), e);
                }
            }, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            return () -> future.cancel(false);
        }
    }

    /** Encodes, seals and sends {@code message} to member {@code to}, whose address is known (event loop). */
    private void sendNow(int to, InetSocketAddress address, RingMessage message) {
        if (!channel.isActive()) {
            return;
        }
        if (VacantAddress.is(address)) {
            // a vacant slot is dead in every view, so the protocol never gets here; if it did, nothing is encoded
            // and nothing sent to an address that is no member's
            log.debug("member {}: datagram to member {} dropped: {} is a vacant slot's placeholder", config.self(), to,
                    address);
            return;
        }
        List<ByteBuf> datagrams;
        try {
            datagrams = codec.encode(message, to, channel.alloc(), seal == null ? 0 : DatagramSeal.OVERHEAD);
        } catch (IllegalArgumentException e) {
            log.error("member {}: cannot send to member {}: {}", config.self(), to, e.getMessage());
            return;
        }
        for (ByteBuf datagram : datagrams) {
            if (seal != null) {
                seal.seal(datagram, nextSequence++);
            }
            channel.writeAndFlush(new DatagramPacket(datagram, address)).addListener(f -> {
                if (!f.isSuccess() && !closed) {
                    log.debug("member {}: datagram to member {} ({}) failed: {}", config.self(), to, address, f.cause().toString());
                }
            });
        }
    }
}
