package org.fabricmanager.daemon.rest;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
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

/**
 * The REST listener: HTTP codec, request aggregation (bounded), keep-alive, an idle timeout, and the
 * {@link RestHandler} that maps paths to daemon queries, behind the {@link OpsHandler} for
 * {@code /metrics} and {@code /health/*}.
 */
public final class RestServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RestServer.class);
    private static final int MAX_REQUEST_BYTES = 64 * 1024;

    private final String bind;
    private final int port;
    private final EventLoopGroup group;
    private final DaemonApi api;
    private final Supplier<String> metrics;
    private final Map<String, RestExtension> extensions;
    private Channel channel;

    /**
     * @param metrics the Prometheus text served on {@code /metrics} (called on an I/O thread per scrape)
     */
    public RestServer(String bind, int port, int ioThreads, DaemonApi api, Supplier<String> metrics) {
        this(bind, port, ioThreads, api, metrics, List.of());
    }

    /**
     * @param extensions actions served under {@code /api/v1/{resource}} by the caller (at most one per resource)
     */
    public RestServer(String bind, int port, int ioThreads, DaemonApi api, Supplier<String> metrics,
                      List<RestExtension> extensions) {
        Map<String, RestExtension> byResource = new LinkedHashMap<>();
        for (RestExtension e : extensions) {
            if (byResource.put(e.resource(), e) != null) {
                throw new IllegalArgumentException("two REST extensions for /api/v1/" + e.resource());
            }
        }
        this.extensions = java.util.Collections.unmodifiableMap(byResource);
        this.bind = bind;
        this.port = port;
        this.api = api;
        this.metrics = metrics;
        this.group = new NioEventLoopGroup(ioThreads, new DefaultThreadFactory("fm-rest", true));
    }

    /** Binds; returns the bound address (with the chosen port when 0 was asked). */
    public InetSocketAddress start() throws InterruptedException {
        channel = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(new ReadTimeoutHandler(60, TimeUnit.SECONDS))
                                .addLast(new HttpServerCodec())
                                .addLast(new HttpServerKeepAliveHandler())
                                .addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES))
                                .addLast(new OpsHandler(api, metrics))
                                .addLast(new RestHandler(api, extensions));
                    }
                })
                .bind(bind, port).sync().channel();
        InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
        LOG.info("REST listening on http://{}:{}/api/v1/status", bind, bound.getPort());
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
