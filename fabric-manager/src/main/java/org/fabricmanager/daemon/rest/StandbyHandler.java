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

/**
 * Every path of a hot-standby manager's REST server. It answers what a standby knows ({@code /api/v1/ha},
 * {@code /api/v1/status} saying STANDBY and naming the leader, {@code /health/live},
 * {@code /health/ready} (always 503: only the active manager is ready), {@code /health/ready-standby},
 * {@code /metrics}) and sends everything else under {@code /api/v1} to the active manager: 421
 * Misdirected Request with the leader's REST address in the body and in {@code Location}, or 503 while
 * no leader is known. It never forwards a request itself: an admin token goes only where the client sends it.
 */
final class StandbyHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final String JSON_TYPE = "application/json; charset=utf-8";
    private static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    /** Misdirected Request (RFC 9110 15.5.20): this server is not the one to answer; ask the leader. */
    static final HttpResponseStatus MISDIRECTED = HttpResponseStatus.valueOf(421);

    private final StandbyEndpoints standby;

    StandbyHandler(StandbyEndpoints standby) {
        this.standby = standby;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        String uri = request.uri();
        String path = new QueryStringDecoder(uri).path();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        boolean head = request.method().equals(HttpMethod.HEAD);
        boolean read = head || request.method().equals(HttpMethod.GET);
        String location = null;
        HttpResponseStatus status;
        String type = JSON_TYPE;
        byte[] body;
        if (path.equals("/metrics") || path.startsWith("/health/")) {
            if (!read) {
                status = HttpResponseStatus.METHOD_NOT_ALLOWED;
                body = error("method " + request.method() + " not allowed on " + path + " (GET only)");
            } else {
                switch (path) {
                    case "/metrics" -> {
                        status = HttpResponseStatus.OK;
                        type = PROMETHEUS_TYPE;
                        body = standby.metrics().getBytes(StandardCharsets.UTF_8);
                    }
                    case "/health/live" -> {
                        status = HttpResponseStatus.OK;
                        body = RestJson.bytes(Map.of("status", "UP"));
                    }
                    case "/health/ready" -> {
                        status = HttpResponseStatus.SERVICE_UNAVAILABLE;
                        body = RestJson.bytes(readiness(false, "this member (" + standby.nodeId()
                                + ") is a hot standby: " + leaderPhrase() + " (probe /health/ready-standby for a standby)"));
                    }
                    case "/health/ready-standby" -> {
                        String unready = standby.standbyUnready();
                        status = unready == null ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE;
                        body = RestJson.bytes(readiness(unready == null, unready));
                    }
                    default -> {
                        status = HttpResponseStatus.NOT_FOUND;
                        body = error("no such endpoint: " + path
                                + " (health endpoints: /health/live, /health/ready, /health/ready-standby)");
                    }
                }
            }
        } else if (read && path.equals("/api/v1/ha")) {
            status = HttpResponseStatus.OK;
            body = RestJson.bytes(standby.ha());
        } else if (read && path.equals("/api/v1/status")) {
            status = HttpResponseStatus.OK;
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("state", "STANDBY");
            s.put("nodeId", standby.nodeId());
            s.put("leaderId", standby.leaderId());
            s.put("leaderRest", standby.leaderRest());
            s.put("ha", standby.ha());
            body = RestJson.bytes(s);
        } else if (path.equals("/api/v1") || path.startsWith("/api/v1/")) {
            String leader = standby.leaderRest();
            if (leader == null) {
                status = HttpResponseStatus.SERVICE_UNAVAILABLE;
            } else {
                status = MISDIRECTED;
                location = leader + uri;
            }
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("error", "this member (" + standby.nodeId() + ") is a hot standby and serves only /api/v1/ha and "
                    + "/api/v1/status: " + leaderPhrase());
            e.put("leaderId", standby.leaderId());
            e.put("leaderRest", leader);
            body = RestJson.bytes(e);
        } else {
            status = HttpResponseStatus.NOT_FOUND;
            body = error("no such endpoint: " + path);
        }
        HttpResponses.send(ctx, status, type, body, keepAlive, head,
                status.equals(HttpResponseStatus.METHOD_NOT_ALLOWED) ? "GET, HEAD" : null, location);
    }

    private String leaderPhrase() {
        String id = standby.leaderId();
        String rest = standby.leaderRest();
        if (id == null) {
            return "no active manager is known (no Raft leader: " + standby.ha().get("role") + " in term "
                    + standby.ha().get("term") + "; a leader needs a majority of the members)";
        }
        return rest == null ? "the active manager is " + id + " (its REST address is not known yet)"
                : "the active manager is " + id + " at " + rest;
    }

    private Map<String, Object> readiness(boolean ready, String reason) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ready", ready);
        body.put("state", "STANDBY");
        if (reason != null) {
            body.put("reason", reason);
        }
        body.put("leaderId", standby.leaderId());
        body.put("leaderRest", standby.leaderRest());
        return body;
    }

    private static byte[] error(String message) {
        return RestJson.bytes(Map.of("error", message));
    }
}
