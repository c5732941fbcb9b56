package org.fabricmanager.daemon.rest;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.WhatIfException;

/**
 * {@code POST /api/v1/routing/rebalance} (behind the admin token, like the other actions) and {@code GET
 * /api/v1/routing}. A rebalance answers once its full routing is installed (the push follows, as after a fault):
 * 503 before the first routing, 429 while the fabric is being routed (ask again once it converged). It may take as
 * long as a routing of the whole fabric ({@link WhatIfEndpoints#TIMEOUT_MS}).
 */
final class RebalanceEndpoints {
    private RebalanceEndpoints() {
    }

    /** {@code POST /api/v1/routing/rebalance} (no body). */
    static CompletableFuture<byte[]> rebalance(DaemonApi api, String authorization) {
        AdminEndpoints.authorize(api.adminToken(), authorization);
        return api.rebalance().handle((result, failure) -> {
            if (failure == null) {
                return RestJson.bytes(result);
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof WhatIfException w) {
                RestError e = WhatIfEndpoints.error(w);
                throw new RestError(e.status(), "rebalance: " + w.getMessage());
            }
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        });
    }

    /** {@code GET /api/v1/routing}. */
    static CompletableFuture<byte[]> routing(DaemonApi api) {
        return api.routing().thenApply(RestJson::bytes);
    }
}
