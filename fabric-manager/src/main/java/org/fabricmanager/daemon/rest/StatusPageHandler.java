package org.fabricmanager.daemon.rest;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.view.LinkLoadService;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's status page and the two read-only endpoints it draws from: {@code GET /} (the page),
 * {@code GET /ui/NAME} (its script, style and icon, see {@link StaticAssets}), {@code GET /api/v1/fabric/graph}
 * and {@code GET /api/v1/fabric/load?pattern=P}. Static files are revalidated by entity tag (the names do not
 * change between releases, so nothing is cached without asking) and sent with a content security policy that
 * allows only the daemon's own origin. Other paths go on to the next handler.
 */
final class StatusPageHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(StatusPageHandler.class);
    private static final String JSON_TYPE = "application/json; charset=utf-8";
    /** The page loads nothing from elsewhere: scripts, styles, images and requests from this origin only. */
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    private static final long GRAPH_TIMEOUT_MS = 10_000;
    /** A first analysis at 4,096 nodes under shift takes seconds on a loaded host; it goes on after a 503. */
    private static final long LOAD_TIMEOUT_MS = 30_000;

    private final DaemonApi api;
    private final StaticAssets assets;

    StatusPageHandler(DaemonApi api, StaticAssets assets) {
        super(false);
        this.api = api;
        this.assets = assets;
    }

    /** Whether this handler answers {@code path}. */
    static boolean serves(String path) {
        return path.equals("/") || path.equals("/index.html") || path.startsWith("/ui/")
                || path.equals("/api/v1/fabric") || path.startsWith("/api/v1/fabric/");
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        String path = query.path();
        if (!serves(path)) {
            ctx.fireChannelRead(request);
            return;
        }
        try {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            boolean head = request.method().equals(HttpMethod.HEAD);
            if (!request.method().equals(HttpMethod.GET) && !head) {
                FullHttpResponse r = json(HttpResponseStatus.METHOD_NOT_ALLOWED, "method " + request.method()
                        + " not allowed on " + path + " (GET only)", head);
                r.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
                send(ctx, r, keepAlive);
                return;
            }
            if (path.startsWith("/api/")) {
                api(ctx, path, query.parameters(), keepAlive, head);
            } else {
                send(ctx, asset(path.startsWith("/ui/") ? path.substring("/ui/".length()) : "index.html",
                        request.headers().get(HttpHeaderNames.IF_NONE_MATCH), head), keepAlive);
            }
        } finally {
            request.release();
        }
    }

    /** The asset's response: 200, 304 when the client holds this version, or 404 for any other name. */
    FullHttpResponse asset(String name, String ifNoneMatch, boolean head) {
        StaticAssets.Asset a = assets.get(name);
        if (a == null) {
            return json(HttpResponseStatus.NOT_FOUND, "no such file: /ui/" + name + " (the status page is at /)", head);
        }
        boolean fresh = ifNoneMatch != null && ifNoneMatch.equals(a.etag());
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                fresh ? HttpResponseStatus.NOT_MODIFIED : HttpResponseStatus.OK,
                fresh || head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(a.body()));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, a.type());
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, fresh ? 0 : a.body().length);
        r.headers().set(HttpHeaderNames.ETAG, a.etag());
        r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
        r.headers().set("Content-Security-Policy", CSP);
        r.headers().set("X-Content-Type-Options", "nosniff");
        r.headers().set("Referrer-Policy", "no-referrer");
        return r;
    }

    private void api(ChannelHandlerContext ctx, String path, Map<String, List<String>> params, boolean keepAlive,
                     boolean head) {
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        CompletableFuture<byte[]> body;
        try {
            body = switch (p) {
                case "/api/v1/fabric/graph" -> api.fabricGraph().orTimeout(GRAPH_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                        .thenApply(RestJson::bytes);
                case "/api/v1/fabric/load" -> {
                    TrafficPattern pattern;
                    try {
                        pattern = LinkLoadService.pattern(RestJson.single(params, "pattern", "shift"));
                    } catch (IllegalArgumentException e) {
                        throw new RestError(HttpResponseStatus.BAD_REQUEST, e.getMessage());
                    }
                    yield api.linkLoad(pattern).orTimeout(LOAD_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                            .thenApply(RestJson::bytes);
                }
                default -> throw new RestError(HttpResponseStatus.NOT_FOUND, "no such endpoint: " + path
                        + " (the fabric endpoints: /api/v1/fabric/graph, /api/v1/fabric/load?pattern=P)");
            };
        } catch (RestError e) {
            body = CompletableFuture.failedFuture(e);
        }
        body.whenCompleteAsync((bytes, error) -> {
            if (error == null) {
                FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
                r.headers().set(HttpHeaderNames.CONTENT_TYPE, JSON_TYPE);
                r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
                r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
                send(ctx, r, keepAlive);
                return;
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            HttpResponseStatus status;
            String message = cause.getMessage();
            if (cause instanceof RestError e) {
                status = e.status();
            } else if (cause instanceof IllegalStateException) {
                status = HttpResponseStatus.SERVICE_UNAVAILABLE;
            } else if (cause instanceof TimeoutException) {
                status = HttpResponseStatus.SERVICE_UNAVAILABLE;
                message = p.endsWith("/load") ? "the analysis is still running; ask again in a few seconds"
                        : "the daemon did not answer within " + GRAPH_TIMEOUT_MS + " ms";
            } else {
                status = HttpResponseStatus.INTERNAL_SERVER_ERROR;
                LOG.error("REST {} failed", path, cause);
            }
            send(ctx, json(status, message, head), keepAlive);
        }, ctx.executor());
    }

    private static FullHttpResponse json(HttpResponseStatus status, String message, boolean head) {
        byte[] body = RestJson.bytes(Map.of("error", message == null ? "unknown error" : message));
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, JSON_TYPE);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        return r;
    }

    private static void send(ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
        if (keepAlive) {
            HttpUtil.setKeepAlive(response, true);
            ctx.writeAndFlush(response);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
