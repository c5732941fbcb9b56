package org.fabricmanager.daemon.rest;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps REST paths to daemon queries ({@code docs/rest-api.md}). Queries complete on the daemon's
 * control thread; the JSON is written back on the connection's event loop. Bad parameters are 400,
 * unknown GUIDs, indices and paths 404, other methods 405, a daemon too busy to answer in 10 s 503.
 */
final class RestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(RestHandler.class);
    private static final long TIMEOUT_MS = 10_000;

    /** The resources answered with GET. */
    private static final Set<String> GET_RESOURCES = Set.of("status", "topology", "faults",
            "discovery", "events", "switches", "route", "routing", "drains");

    private final DaemonApi api;
    private final Map<String, RestExtension> extensions;

    RestHandler(DaemonApi api, Map<String, RestExtension> extensions) {
        this.api = api;
        this.extensions = extensions;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        CompletableFuture<byte[]> body;
        try {
            if (request.method().equals(HttpMethod.POST)) {
                body = post(query.path(), query.parameters(), request.headers().get(HttpHeaderNames.AUTHORIZATION),
                        ByteBufUtil.getBytes(request.content()));
            } else if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
                throw new RestError(HttpResponseStatus.METHOD_NOT_ALLOWED, "method " + request.method()
                        + " not allowed on " + query.path() + " (GET, or POST for the actions in docs/rest-api.md)");
            } else {
                body = dispatch(query.path(), query.parameters());
            }
        } catch (RestError e) {
            body = CompletableFuture.failedFuture(e);
        }
        boolean head = request.method().equals(HttpMethod.HEAD);
        // a what-if routes and analyses a whole fabric: it gets longer than a query of the control thread
        long timeoutMs = query.path().startsWith("/api/v1/whatif") || query.path().startsWith("/api/v1/drain")
                || query.path().startsWith("/api/v1/routing/rebalance") ? WhatIfEndpoints.TIMEOUT_MS : TIMEOUT_MS;
        body.orTimeout(timeoutMs, TimeUnit.MILLISECONDS).whenCompleteAsync((bytes, error) -> {
            if (error == null) {
                respond(ctx, HttpResponseStatus.OK, bytes, keepAlive, head);
            } else {
                Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                HttpResponseStatus status;
                if (cause instanceof RestError he) {
                    status = he.status();
                } else if (cause instanceof IllegalArgumentException) {
                    status = HttpResponseStatus.NOT_FOUND;
                } else if (cause instanceof IllegalStateException) {
                    status = HttpResponseStatus.SERVICE_UNAVAILABLE;
                } else if (cause instanceof TimeoutException) {
                    status = HttpResponseStatus.SERVICE_UNAVAILABLE;
                    cause = new IllegalStateException("the daemon did not answer within " + timeoutMs + " ms");
                } else {
                    status = HttpResponseStatus.INTERNAL_SERVER_ERROR;
                    LOG.error("REST {} failed", query.path(), cause);
                }
                HttpResponses.send(ctx, status, "application/json; charset=utf-8", errorJson(cause.getMessage()),
                        keepAlive, head, status.equals(HttpResponseStatus.METHOD_NOT_ALLOWED) ? allowed(query.path()) : null);
            }
        }, ctx.executor());
    }

    /** The methods {@code path} answers, for a 405's {@code Allow} header: POST for the actions, else GET and HEAD. */
    private String allowed(String path) {
        String[] p = path.split("/");
        if (p.length >= 4 && extensions.containsKey(p[3])) {
            return extensions.get(p[3]).allow();
        }
        boolean action = p.length >= 4 && (p[3].equals("reroute") || p[3].equals("whatif") || p[3].equals("drain")
                || p[3].equals("undrain") || extensions.containsKey(p[3])
                || (p[3].equals("switches") && p.length == 6 && p[5].equals("admit")) || rebalance(p));
        return action ? "POST" : "GET, HEAD";
    }

    /** The path split on '/' ({@code parts[0]} empty, {@code parts[3]} the resource), 404 outside /api/v1. */
    private static String[] parts(String path) {
        String p = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        String[] parts = p.split("/");
        if (parts.length < 4 || !parts[1].equals("api") || !parts[2].equals("v1")) {
            throw notFound(path);
        }
        return parts;
    }

    private CompletableFuture<byte[]> post(String path, Map<String, List<String>> params, String authorization,
                                           byte[] content) {
        String[] parts = parts(path);
        if (parts[3].equals("reroute") && parts.length == 4) {
            return AdminEndpoints.reroute(api, authorization);
        }
        if (parts[3].equals("whatif") && parts.length == 4) {
            return WhatIfEndpoints.whatIf(api, content, authorization);
        }
        if (parts[3].equals("switches") && parts.length == 6 && parts[5].equals("admit")) {
            return AdminEndpoints.admit(api, guid(parts[4]), authorization);
        }
        if ((parts[3].equals("drain") || parts[3].equals("undrain")) && parts.length == 4) {
            return DrainEndpoints.post(api, parts[3].equals("drain"), content, authorization);
        }
        if (rebalance(parts)) {
            return RebalanceEndpoints.rebalance(api, authorization);
        }
        RestExtension extension = extensions.get(parts[3]);
        if (extension != null) {
            return extension.post(parts, params, path);
        }
        if (GET_RESOURCES.contains(parts[3])) {
            throw new RestError(HttpResponseStatus.METHOD_NOT_ALLOWED, "POST not allowed on " + path
                    + " (POST: /api/v1/reroute, /api/v1/whatif, /api/v1/drain, /api/v1/undrain, /api/v1/routing/rebalance"
                    + (extensions.isEmpty() ? "" : " and /api/v1/"
                    + String.join("/..., /api/v1/", extensions.keySet()) + "/...") + ")");
        }
        throw new RestError(HttpResponseStatus.NOT_FOUND, path + ": no such action (POST: /api/v1/reroute, /api/v1/whatif,"
                + " /api/v1/drain, /api/v1/undrain, /api/v1/routing/rebalance"
                + (extensions.isEmpty() ? "; the simulation endpoints /api/v1/sim/... exist only in demo mode" : " and /api/v1/"
                + String.join("/..., /api/v1/", extensions.keySet()) + "/...") + ")");
    }

    private CompletableFuture<byte[]> dispatch(String path, Map<String, List<String>> params) {
        String[] parts = parts(path);
        String resource = parts[3];
        RestExtension extension = extensions.get(resource);
        if (extension != null) {
            return extension.get(parts, params, path);
        }
        switch (resource) {
            case "status" -> {
                only(parts, 4, path);
                return api.status().thenApply(RestHandler::json);
            }
            case "topology" -> {
                only(parts, 4, path);
                return api.topology().thenApply(RestHandler::topologyJson);
            }
            case "faults" -> {
                only(parts, 4, path);
                return api.faults().thenApply(RestHandler::json);
            }
            case "drains" -> {
                if (parts.length == 5 && parts[4].equals("isolated")) {
                    return api.isolated().thenApply(RestJson::bytes);
                }
                only(parts, 4, path);
                return DrainEndpoints.list(api);
            }
            case "links" -> {
                if (parts.length == 5 && parts[4].equals("health")) {
                    return api.linkHealth().thenApply(RestJson::bytes);
                }
                throw new RestError(HttpResponseStatus.NOT_FOUND, "no such resource: " + path);
            }
            case "reroute", "whatif", "drain", "undrain" -> throw new RestError(HttpResponseStatus.METHOD_NOT_ALLOWED, "use POST for " + path);
            case "routing" -> {
                if (parts.length == 4) {
                    return RebalanceEndpoints.routing(api);
                }
                if (parts.length == 5 && parts[4].equals("quality")) {
                    return WhatIfEndpoints.quality(api);
                }
                if (rebalance(parts)) {
                    throw new RestError(HttpResponseStatus.METHOD_NOT_ALLOWED, "use POST for " + path);
                }
                throw notFound(path);
            }
            case "discovery" -> {
                only(parts, 4, path);
                return api.discovery().thenApply(RestHandler::json);
            }
            case "events" -> {
                only(parts, 4, path);
                long since = longParam(params, "since", 0);
                return api.milestones(since).thenApply(RestHandler::json);
            }
            case "switches" -> {
                if (parts.length == 4) {
                    return api.switches().thenApply(RestHandler::json);
                }
                if (parts.length == 5 && parts[4].equals("pending")) {
                    return api.pendingSwitches().thenApply(RestHandler::json);
                }
                if (parts.length == 6 && parts[5].equals("admit")) {
                    throw new RestError(HttpResponseStatus.METHOD_NOT_ALLOWED, "use POST for " + path);
                }
                long guid = guid(parts[4]);
                if (parts.length == 5) {
                    return api.switchDetail(guid).thenApply(found(parts[4], RestHandler::json));
                }
                if (parts.length == 6 && parts[5].equals("lft")) {
                    return api.lft(guid).thenApply(found(parts[4], RestHandler::json));
                }
                if (parts.length == 6 && parts[5].equals("ports")) {
                    return api.portCounters(guid).thenApply(found(parts[4], RestHandler::json));
                }
                if (parts.length == 6 && parts[5].equals("vc")) {
                    return api.vc(guid).thenApply(found(parts[4], RestHandler::json));
                }
                throw notFound(path);
            }
            case "route" -> {
                only(parts, 4, path);
                int src = intParam(params, "src");
                int dst = intParam(params, "dst");
                if (src == dst) {
                    throw new RestError(HttpResponseStatus.BAD_REQUEST, "src and dst are the same destination index " + src);
                }
                return api.route(src, dst).thenApply(RestHandler::json);
            }
            default -> throw notFound(path);
        }
    }

    /** True for {@code /api/v1/routing/rebalance}. */
    private static boolean rebalance(String[] parts) {
        return parts.length == 5 && parts[3].equals("routing") && parts[4].equals("rebalance");
    }

    private static void only(String[] parts, int length, String path) {
        if (parts.length != length) {
            throw notFound(path);
        }
    }

    static RestError notFound(String path) {
        return RestError.notFound(path);
    }

    private static <T> Function<T, byte[]> found(String guid, Function<T, byte[]> then) {
        return value -> {
            if (value == null) {
                throw new RestError(HttpResponseStatus.NOT_FOUND, "unknown switch " + guid);
            }
            return then.apply(value);
        };
    }

    static long guid(String text) {
        return RestJson.guid(text);
    }

    private static int intParam(Map<String, List<String>> params, String name) {
        List<String> values = params.get(name);
        if (values == null || values.isEmpty()) {
            throw new RestError(HttpResponseStatus.BAD_REQUEST, "missing query parameter '" + name + "'");
        }
        if (values.size() > 1) {
            throw new RestError(HttpResponseStatus.BAD_REQUEST, "query parameter '" + name + "' given " + values.size() + " times");
        }
        try {
            int v = Integer.parseInt(values.get(0).trim());
            if (v < 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new RestError(HttpResponseStatus.BAD_REQUEST, "query parameter '" + name
                    + "' must be a destination index (a non-negative integer), got '" + values.get(0) + "'");
        }
    }

    private static long longParam(Map<String, List<String>> params, String name, long fallback) {
        List<String> values = params.get(name);
        if (values == null || values.isEmpty()) {
            return fallback;
        }
        try {
            return Long.parseLong(values.get(0).trim());
        } catch (NumberFormatException e) {
            throw new RestError(HttpResponseStatus.BAD_REQUEST, "query parameter '" + name + "' must be an integer, got '"
                    + values.get(0) + "'");
        }
    }

    static byte[] json(Object value) {
        return RestJson.bytes(value);
    }

    private static byte[] topologyJson(Fabric fabric) {
        if (fabric == null) {
            throw new IllegalStateException("no switch has reported yet: the topology is empty");
        }
        return FabricJson.toJson(fabric).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] errorJson(String message) {
        return json(Map.of("error", message == null ? "unknown error" : message));
    }

    private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, byte[] body, boolean keepAlive,
                                boolean head) {
        HttpResponses.send(ctx, status, "application/json; charset=utf-8", body, keepAlive, head);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("REST connection error: {}", cause.toString());
        ctx.close();
    }
}
