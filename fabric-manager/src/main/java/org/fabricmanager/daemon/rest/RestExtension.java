package org.fabricmanager.daemon.rest;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Resources served under {@code /api/v1/{resource}/...} by something outside the daemon and wired in by
 * whoever starts it: the demo's simulator endpoints ({@code /api/v1/sim}), the hot-standby group's
 * {@code /api/v1/ha}. The daemon's REST server routes {@code POST} and {@code GET} requests on the
 * resource here and answers other methods with 405.
 */
public interface RestExtension {

    /** The first path segment under {@code /api/v1} this extension serves, e.g. {@code sim}. */
    String resource();

    /**
     * Answers a {@code POST}.
     *
     * @param parts  the path split on {@code /} ({@code parts[0]} is empty, {@code parts[3]} is the resource)
     * @param params the query parameters
     * @param path   the path as requested, for messages
     * @return the JSON body of a 200 answer (see {@link RestJson}); fails with {@link RestError} for others
     */
    CompletableFuture<byte[]> post(String[] parts, Map<String, List<String>> params, String path);

    /** The {@code Allow} header of a 405 on this resource. */
    default String allow() {
        return "POST";
    }

    /**
     * Answers a {@code GET} (or {@code HEAD}); by default the resource takes {@code POST} only (405).
     *
     * @return the JSON body of a 200 answer; fails with {@link RestError} for others
     */
    default CompletableFuture<byte[]> get(String[] parts, Map<String, List<String>> params, String path) {
        throw new RestError(HttpResponseStatus.METHOD_NOT_ALLOWED, "use POST for " + path);
    }
}
