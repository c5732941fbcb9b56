package org.fabricmanager.daemon.rest;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.southbound.AcceptFailures;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The REST listener: at most {@code maxConnections} connections at once, a quarter of them per peer address
 * ({@link ConnectionCap}; more are answered 503 over plaintext and closed, {@link CapRefusal}, counted as 503 in
 * {@link RestRejections}), optional
 * HTTPS, the HTTP codec with strict body framing ({@link RestHttpCodec}) and request aggregation within
 * {@link RestLimits}
 * ({@link BoundedAggregator}), malformed requests answered and closed ({@link MalformedRequests}), one request in
 * flight per connection ({@link OneRequestInFlight}), keep-alive, an idle timeout for connections with no request in
 * progress ({@link IdleConnections}), failures to accept logged rate-limited ({@link AcceptFailures}), and the
 * {@link RestHandler} that
 * maps paths to daemon queries, behind the {@link StatusPageHandler} for the status page ({@code /}) and the
 * {@link OpsHandler} for {@code /metrics} and {@code /health/*}.
 */
public final class RestServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RestServer.class);

    private final String bind;
    private final int port;
    private final EventLoopGroup group;
    /** The handlers after request aggregation, new ones per connection. */
    private final Supplier<List<ChannelHandler>> endpoints;
    private final SslContext tls;
    /** What the start-up line calls this listener. */
    private final String role;
    private final RestRejections rejections;
    private final ConnectionCap connections;
    private final AtomicInteger lingeringRefusals = new AtomicInteger();
    private final int idleTimeoutMs;
    private Channel channel;

    /**
     * Plain HTTP, refusals counted in memory only.
     *
     * @param metrics the Prometheus text served on {@code /metrics} (called on an I/O thread per scrape)
     */
    public RestServer(String bind, int port, int ioThreads, DaemonApi api, Supplier<String> metrics) {
        this(new RestListener(bind, port, null, new RestRejections(null, 10_000, System::currentTimeMillis)),
                ioThreads, api, metrics, List.of());
    }

    /**
     * @param extensions actions served under {@code /api/v1/{resource}} by the caller (at most one per resource)
     */
    public RestServer(RestListener listener, int ioThreads, DaemonApi api, Supplier<String> metrics,
                      List<RestExtension> extensions) {
        Map<String, RestExtension> byResource = new LinkedHashMap<>();
        for (RestExtension e : extensions) {
            if (byResource.put(e.resource(), e) != null) {
                throw new IllegalArgumentException("two REST extensions for /api/v1/" + e.resource());
            }
        }
        Map<String, RestExtension> byName = Collections.unmodifiableMap(byResource);
        StaticAssets page = StaticAssets.load();
        this.endpoints = () -> List.of(new StatusPageHandler(api, page), new OpsHandler(api, metrics),
                new RestHandler(api, byName));
        this.role = "REST";
        this.bind = listener.bind();
        this.port = listener.port();
        this.tls = listener.tls();
        this.rejections = listener.rejections();
        this.connections = new ConnectionCap(listener.maxConnections());
        this.idleTimeoutMs = listener.idleTimeoutMs();
        this.group = new NioEventLoopGroup(ioThreads, new DefaultThreadFactory("fm-rest", true));
    }

    private RestServer(RestListener listener, Supplier<List<ChannelHandler>> endpoints) {
        this.bind = listener.bind();
        this.port = listener.port();
        this.endpoints = endpoints;
        this.role = "standby REST";
        this.tls = listener.tls();
        this.rejections = listener.rejections();
        this.connections = new ConnectionCap(listener.maxConnections());
        this.idleTimeoutMs = listener.idleTimeoutMs();
        this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("fm-rest-standby", true));
    }

    /**
     * The REST server of a hot-standby manager that does not lead: the same listener, limits and TLS, with
     * {@link StandbyHandler} answering every path ({@code docs/rest-api.md}, "On a standby").
     */
    public static RestServer standby(RestListener listener, StandbyEndpoints standby) {
        return new RestServer(listener, () -> List.of(new StandbyHandler(standby)));
    }

    /** The scheme clients use: {@code https} with TLS, else {@code http}. */
    public String scheme() {
        return tls == null ? "http" : "https";
    }

    /** Connections open now on this listener. */
    public int openConnections() {
        return connections.open();
    }

    /** Binds; returns the bound address (with the chosen port when 0 was asked). */
    public InetSocketAddress start() throws InterruptedException {
        channel = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (!connections.admit(ch)) {
                            // the listener never holds more descriptors than its cap and a few refusals lingering,
                            // whatever a client opens
                            rejections.record(HttpResponseStatus.SERVICE_UNAVAILABLE.code(), ch.remoteAddress());
                            CapRefusal refusal = tls == null ? CapRefusal.take(lingeringRefusals) : null;
                            if (refusal == null) {
                                ch.close();
                            } else {
                                ch.pipeline().addLast(refusal);
                            }
                            return;
                        }
                        ch.pipeline().addLast(new IdleStateHandler(0, 0, idleTimeoutMs, TimeUnit.MILLISECONDS));
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        }
                        ch.pipeline()
                                .addLast(new RestHttpCodec())
                                .addLast(new HttpServerKeepAliveHandler())
                                .addLast(new BoundedAggregator(rejections))
                                .addLast(new MalformedRequests(rejections))
                                .addLast(new FlowControlHandler())
                                .addLast(new OneRequestInFlight())
                                .addLast(new IdleConnections());
                        for (ChannelHandler h : endpoints.get()) {
                            ch.pipeline().addLast(h);
                        }
                    }
                })
                .bind(bind, port).sync().channel();
        InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
        AcceptFailures.install(channel, role + " " + bind + ":" + bound.getPort());
        LOG.info("{} listening on {}://{}:{}/api/v1/status", role, scheme(), bind, bound.getPort());
        return bound;
    }

    @Override
    public void close() {
        if (channel != null) {
            channel.close().syncUninterruptibly();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
