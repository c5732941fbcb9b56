package org.fabricmanager.daemon.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.fabricmanager.daemon.DaemonApi;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps REST paths to daemon queries ({@code docs/rest-api.md}). Queries complete on the daemon's
 * control thread; the JSON is written back on the connection's event loop. Bad parameters are 400,
 * unknown GUIDs, indices and paths 404, other methods 405, a daemon too busy to answer in 10 s 503.
 */
final class RestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(RestHandler.class);
    static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
    private static final long TIMEOUT_MS = 10_000;

    private final DaemonApi api;

    RestHandler(DaemonApi api) {
        this.api = api;
    }

    /** A response status with its JSON error message. */
    static final class HttpError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final HttpResponseStatus status;

        HttpError(HttpResponseStatus status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        CompletableFuture<byte[]> body;
        try {
            if (request.method().equals(HttpMethod.POST)) {
                body = FaultEndpoints.post(api, query.path(), query.parameters(),
                        request.headers().get(HttpHeaderNames.AUTHORIZATION));
            } else if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
                throw new HttpError(HttpResponseStatus.METHOD_NOT_ALLOWED, "method " + request.method()
                        + " not allowed on " + query.path() + " (GET, or POST for the actions in docs/rest-api.md)");
            } else {
                body = dispatch(query.path(), query.parameters());
            }
        } catch (HttpError e) {
            body = CompletableFuture.failedFuture(e);
        }
        boolean head = request.method().equals(HttpMethod.HEAD);
        body.orTimeout(TIMEOUT_MS, TimeUnit.MILLISECONDS).whenCompleteAsync((bytes, error) -> {
            if (error == null) {
                respond(ctx, HttpResponseStatus.OK, bytes, keepAlive, head);
            } else {
                Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                HttpResponseStatus status;
                if (cause instanceof HttpError he) {
                    status = he.status;
                } else if (cause instanceof IllegalArgumentException) {
                    status = HttpResponseStatus.NOT_FOUND;
                } else if (cause instanceof IllegalStateException) {
                    status = HttpResponseStatus.SERVICE_UNAVAILABLE;
                } else if (cause instanceof TimeoutException) {
                    status = HttpResponseStatus.SERVICE_UNAVAILABLE;
                    cause = new IllegalStateException("the daemon did not answer within " + TIMEOUT_MS + " ms");
                } else {
                    status = HttpResponseStatus.INTERNAL_SERVER_ERROR;
                    LOG.error("REST {} failed", query.path(), cause);
                }
                respond(ctx, status, errorJson(cause.getMessage()), keepAlive, head);
            }
        }, ctx.executor());
    }

    private CompletableFuture<byte[]> dispatch(String path, Map<String, List<String>> params) {
        String p = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        String[] parts = p.split("/");
        // parts[0] is empty (leading slash)
        if (parts.length < 4 || !parts[1].equals("api") || !parts[2].equals("v1")) {
            throw notFound(path);
        }
        String resource = parts[3];
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
            case "reroute", "sim" -> throw new HttpError(HttpResponseStatus.METHOD_NOT_ALLOWED, "use POST for " + path);
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
                long guid = guid(parts[4]);
                if (parts.length == 5) {
                    return api.switchDetail(guid).thenApply(found(parts[4], RestHandler::json));
                }
                if (parts.length == 6 && parts[5].equals("lft")) {
                    return api.lft(guid).thenApply(found(parts[4], RestHandler::json));
                }
                throw notFound(path);
            }
            case "route" -> {
                only(parts, 4, path);
                int src = intParam(params, "src");
                int dst = intParam(params, "dst");
                if (src == dst) {
                    throw new HttpError(HttpResponseStatus.BAD_REQUEST, "src and dst are the same destination index " + src);
                }
                return api.route(src, dst).thenApply(RestHandler::json);
            }
            default -> throw notFound(path);
        }
    }

    private static void only(String[] parts, int length, String path) {
        if (parts.length != length) {
            throw notFound(path);
        }
    }

    static HttpError notFound(String path) {
        return new HttpError(HttpResponseStatus.NOT_FOUND, "no such endpoint: " + path + " (see docs/rest-api.md)");
    }

    private static <T> Function<T, byte[]> found(String guid, Function<T, byte[]> then) {
        return value -> {
            if (value == null) {
                throw new HttpError(HttpResponseStatus.NOT_FOUND, "unknown switch " + guid);
            }
            return then.apply(value);
        };
    }

    static long guid(String text) {
        try {
            return Guids.parseLenient(text);
        } catch (TopologyException e) {
            throw new HttpError(HttpResponseStatus.BAD_REQUEST, "bad GUID '" + text + "': expected 0x followed by up to 16 hex digits");
        }
    }

    private static int intParam(Map<String, List<String>> params, String name) {
        List<String> values = params.get(name);
        if (values == null || values.isEmpty()) {
            throw new HttpError(HttpResponseStatus.BAD_REQUEST, "missing query parameter '" + name + "'");
        }
        if (values.size() > 1) {
            throw new HttpError(HttpResponseStatus.BAD_REQUEST, "query parameter '" + name + "' given " + values.size() + " times");
        }
        try {
            int v = Integer.parseInt(values.get(0).trim());
            if (v < 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new HttpError(HttpResponseStatus.BAD_REQUEST, "query parameter '" + name
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
            throw new HttpError(HttpResponseStatus.BAD_REQUEST, "query parameter '" + name + "' must be an integer, got '"
                    + values.get(0) + "'");
        }
    }

    static byte[] json(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
        }
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
