package org.fabricmanager.daemon.rest;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fabricmanager.daemon.api.DaemonApi;

/**
 * The daemon's own REST actions ({@code POST}), each behind the configured admin token: a forced
 * re-route, and admitting a switch that waits for admission. Answers are small JSON objects.
 */
final class AdminEndpoints {
    private AdminEndpoints() {
    }

    /** {@code POST /api/v1/reroute}. */
    static CompletableFuture<byte[]> reroute(DaemonApi api, String authorization) {
        authorize(api.adminToken(), authorization);
        return api.reroute().thenApply(msg -> RestJson.bytes(Map.of("result", msg)));
    }

    /** {@code POST /api/v1/switches/{guid}/admit}. */
    static CompletableFuture<byte[]> admit(DaemonApi api, long guid, String authorization) {
        authorize(api.adminToken(), authorization);
        return api.admit(guid).thenApply(msg -> RestJson.bytes(Map.of("result", msg)));
    }

    static void authorize(String token, String authorization) {
        if (token == null) {
            throw new RestError(HttpResponseStatus.FORBIDDEN, "no admin token is configured (rest.adminToken): "
                    + "actions are refused");
        }
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            throw new RestError(HttpResponseStatus.UNAUTHORIZED, "missing 'Authorization: Bearer <token>' header");
        }
        byte[] given = authorization.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(given, token.getBytes(StandardCharsets.UTF_8))) {
            throw new RestError(HttpResponseStatus.FORBIDDEN, "wrong admin token");
        }
    }
}
