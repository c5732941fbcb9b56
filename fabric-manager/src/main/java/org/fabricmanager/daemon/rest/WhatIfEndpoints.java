package org.fabricmanager.daemon.rest;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.WhatIfException;
import org.fabricmanager.daemon.api.WhatIfRequest;

/**
 * {@code POST /api/v1/whatif} (failures, or {@code {"rebalance":true}}: what a rebalance would change and gain) and
 * {@code GET /api/v1/routing/quality}. What-if changes nothing but costs a
 * routing and an analysis of CPU, so it takes the admin token like the other actions; one runs at a time
 * (429 while one runs). A request naming what the fabric lacks is 400, nothing routed yet 503, an engine
 * that cannot route the degraded fabric 409; the answer may take up to {@link #TIMEOUT_MS}. The quality needs no token (a GET, cached).
 */
final class WhatIfEndpoints {
    /**
     * How long a what-if may take before the client gets 503 (it then still runs to its end, and holds the
     * one-at-a-time slot): well under a second at 768 switches, more at 5,120 (docs/performance.md, "What-if and
     * routing quality").
     */
    static final long TIMEOUT_MS = 120_000;
    private WhatIfEndpoints() {
    }

    /** {@code POST /api/v1/whatif} with the request as its JSON body. */
    static CompletableFuture<byte[]> whatIf(DaemonApi api, byte[] body, String authorization) {
        AdminEndpoints.authorize(api.adminToken(), authorization);
        WhatIfRequest request;
        try {
            request = WhatIfRequest.parse(body);
        } catch (WhatIfException e) {
            throw error(e);
        }
        CompletableFuture<?> answer = request.rebalance() ? api.whatIfRebalance() : api.whatIf(request);
        return answer.handle((result, failure) -> {
            if (failure == null) {
                return RestJson.bytes(result);
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof WhatIfException w) {
                throw error(w);
            }
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        });
    }

    /** {@code GET /api/v1/routing/quality}. */
    static CompletableFuture<byte[]> quality(DaemonApi api) {
        return api.routingQuality().thenApply(RestJson::bytes);
    }

    static RestError error(WhatIfException e) {
        HttpResponseStatus status = switch (e.kind()) {
            case BAD_REQUEST -> HttpResponseStatus.BAD_REQUEST;
            case BUSY -> HttpResponseStatus.TOO_MANY_REQUESTS;
            case NOT_ROUTED -> HttpResponseStatus.SERVICE_UNAVAILABLE;
            case REFUSED -> HttpResponseStatus.CONFLICT;
        };
        return new RestError(status, "whatif: " + e.getMessage());
    }
}
