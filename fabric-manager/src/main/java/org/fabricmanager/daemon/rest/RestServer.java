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
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.DaemonApi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.Collections;

/**
 * The REST listener: optional HTTPS, HTTP codec and request aggregation within {@link RestLimits},
 * malformed requests answered and closed ({@link MalformedRequests}), one request in flight per
 * connection ({@link OneRequestInFlight}), keep-alive, an idle timeout, and the {@link RestHandler} that
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
        this.group = new NioEventLoopGroup(ioThreads, new DefaultThreadFactory("fm-rest", true));
    }

    private RestServer(String bind, int port, Supplier<List<ChannelHandler>> endpoints, SslContext tls,
                       RestRejections rejections) {
        this.bind = bind;
        this.port = port;
        this.endpoints = endpoints;
        this.role = "standby REST";
        this.tls = tls;
        this.rejections = rejections;
        this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("fm-rest-standby", true));
    }

    /**
     * The REST server of a hot-standby manager that does not lead: the same listener, limits and TLS, with
     * {@link StandbyHandler} answering every path ({@code docs/rest-api.md}, "On a standby").
     */
    public static RestServer standby(String bind, int port, StandbyEndpoints standby, SslContext tls,
                                     RestRejections rejections) {
        return new RestServer(bind, port, () -> List.of(new StandbyHandler(standby)), tls, rejections);
    }

    /** The scheme clients use: {@code https} with TLS, else {@code http}. */
    public String scheme() {
        return tls == null ? "http" : "https";
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
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        }
                        ch.pipeline()
                                .addLast(new ReadTimeoutHandler(60, TimeUnit.SECONDS))
                                .addLast(new HttpServerCodec(RestLimits.MAX_INITIAL_LINE, RestLimits.MAX_HEADER_BYTES,
                                        RestLimits.MAX_CHUNK_BYTES))
                                .addLast(new HttpServerKeepAliveHandler())
                                .addLast(new HttpObjectAggregator(RestLimits.MAX_BODY_BYTES))
                                .addLast(new MalformedRequests(rejections))
                                .addLast(new FlowControlHandler())
                                .addLast(new OneRequestInFlight());
                        for (ChannelHandler h : endpoints.get()) {
                            ch.pipeline().addLast(h);
                        }
                    }
                })
                .bind(bind, port).sync().channel();
        InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
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
