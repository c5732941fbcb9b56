package org.fabricmanager.daemon.rest;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations endpoints, outside {@code /api/v1}: {@code GET /metrics} (Prometheus text),
 * {@code GET /health/live} (200 while the process serves HTTP) and {@code GET /health/ready} (200 when
 * the fabric is routed and every connected switch holds the current tables, else 503 with the reason).
 * Any other path goes on to {@link RestHandler}.
 */
final class OpsHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(OpsHandler.class);
    private static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private static final String JSON_TYPE = "application/json; charset=utf-8";
    private static final long READY_TIMEOUT_MS = 5_000;

    private final DaemonApi api;
    private final Supplier<String> metrics;

    /** A response: status, content type, body. */
    private record Reply(HttpResponseStatus status, String type, byte[] body) {
        static Reply json(HttpResponseStatus status, Object value) {
            return new Reply(status, JSON_TYPE, RestHandler.json(value));
        }
    }

    OpsHandler(DaemonApi api, Supplier<String> metrics) {
        super(false);
        this.api = api;
        this.metrics = metrics;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        String path = new QueryStringDecoder(request.uri()).path();
        if (!path.equals("/metrics") && !path.startsWith("/health/")) {
            ctx.fireChannelRead(request);
            return;
        }
        try {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            boolean head = request.method().equals(HttpMethod.HEAD);
            if (!request.method().equals(HttpMethod.GET) && !head) {
                respond(ctx, Reply.json(HttpResponseStatus.METHOD_NOT_ALLOWED,
                        Map.of("error", "method " + request.method() + " not allowed on " + path + " (GET only)")), keepAlive, head);
                return;
            }
            reply(path).whenCompleteAsync((reply, error) -> respond(ctx, error == null ? reply : failed(path, error),
                    keepAlive, head), ctx.executor());
        } finally {
            request.release();
        }
    }

    private CompletableFuture<Reply> reply(String path) {
        return switch (path) {
            case "/metrics" -> CompletableFuture.completedFuture(new Reply(HttpResponseStatus.OK, PROMETHEUS_TYPE,
                    metrics.get().getBytes(StandardCharsets.UTF_8)));
            case "/health/live" -> CompletableFuture.completedFuture(Reply.json(HttpResponseStatus.OK, Map.of("status", "UP")));
            case "/health/ready" -> api.status().orTimeout(READY_TIMEOUT_MS, TimeUnit.MILLISECONDS).thenApply(OpsHandler::ready);
            default -> CompletableFuture.completedFuture(Reply.json(HttpResponseStatus.NOT_FOUND,
                    Map.of("error", "no such endpoint: " + path + " (health endpoints: /health/live, /health/ready)")));
        };
    }

    /**
     * Ready means: routed, every connected switch holds the tables in force (state CONVERGED), the fabric
     * is not miswired against the expected PGFT (unless {@code fabric.unreadyOnMismatch} is off), and OpenSM, when
     * configured, is there: while it is lost the switches keep their tables, but nothing can change them.
     */
    static Map<String, Object> readiness(Views.Status s) {
        Map<String, Object> body = new LinkedHashMap<>();
        boolean routed = s.routing() != null && s.routing().version() > 0;
        String unready = s.discovery() == null ? null : s.discovery().unready();
        // OpenSM's absence first: whatever else is wrong waits for it
        String opensm = s.opensm() == null || "UP".equals(s.opensm().state()) ? null : s.opensm().lostReason() != null
                ? "OpenSM lost: " + s.opensm().lostReason() + "; the switches keep their tables, but nothing can change"
                + " them" : "OpenSM's plug-in has not connected yet";
        boolean ready = routed && s.state() == DaemonState.CONVERGED && unready == null && opensm == null;
        body.put("ready", ready);
        body.put("state", s.state().name());
        if (!ready) {
            body.put("reason", opensm != null ? opensm
                    : routed && s.state() == DaemonState.CONVERGED ? unready : reason(s, routed));
        }
        body.put("tableVersion", routed ? s.routing().version() : null);
        body.put("connected", s.switches().connected());
        body.put("inSync", s.tables().inSync());
        body.put("pending", s.tables().pending());
        return body;
    }

    private static String reason(Views.Status s, boolean routed) {
        if (!routed) {
            return s.switches().connected() == 0 ? "no switch has connected yet" : "the fabric has not been routed yet ("
                    + s.switches().connected() + " switches connected, state " + s.state() + ")";
        }
        return switch (s.state()) {
            case ROUTING -> "re-routing after a fabric change";
            case PUSHING -> s.tables().pending() + " of " + s.switches().connected()
                    + " connected switches do not hold the current tables yet"
                    + (s.tables().failing() > 0 ? " (" + s.tables().failing() + " failing)" : "");
            default -> "state " + s.state();
        };
    }

    private static Reply ready(Views.Status s) {
        Map<String, Object> body = readiness(s);
        return Reply.json(Boolean.TRUE.equals(body.get("ready")) ? HttpResponseStatus.OK
                : HttpResponseStatus.SERVICE_UNAVAILABLE, body);
    }

    private static Reply failed(String path, Throwable error) {
        Throwable cause = error.getCause() != null ? error.getCause() : error;
        if (cause instanceof TimeoutException) {
            return Reply.json(HttpResponseStatus.SERVICE_UNAVAILABLE, Map.of("ready", false,
                    "reason", "the daemon's control thread did not answer within " + READY_TIMEOUT_MS + " ms"));
        }
        LOG.error("{} failed", path, cause);
        return Reply.json(path.equals("/health/ready") ? HttpResponseStatus.SERVICE_UNAVAILABLE
                : HttpResponseStatus.INTERNAL_SERVER_ERROR, Map.of("ready", false, "reason", String.valueOf(cause.getMessage())));
    }

    private static void respond(ChannelHandlerContext ctx, Reply reply, boolean keepAlive, boolean head) {
        HttpResponses.send(ctx, reply.status(), reply.type(), reply.body(), keepAlive, head,
                reply.status().equals(HttpResponseStatus.METHOD_NOT_ALLOWED) ? "GET, HEAD" : null);
    }
}
