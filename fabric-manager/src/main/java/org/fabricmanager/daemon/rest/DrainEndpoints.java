package org.fabricmanager.daemon.rest;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.DrainException;
import org.fabricmanager.daemon.api.DrainRequest;

/**
 * {@code POST /api/v1/drain}, {@code POST /api/v1/undrain} (behind the admin token, like the other actions) and
 * {@code GET /api/v1/drains}. A malformed request is 400, an unknown switch or cable 404, a drain the what-if refuses
 * (or one drained already, or an undrain of what is not drained) 409, a what-if already running or, for an unforced
 * drain, a re-route due 429, nothing routed yet 503. A drain may take as long as a what-if
 * ({@link WhatIfEndpoints#TIMEOUT_MS}).
 */
final class DrainEndpoints {
    private DrainEndpoints() {
    }

    /** {@code POST /api/v1/drain} or {@code /api/v1/undrain} with the request as its JSON body. */
    static CompletableFuture<byte[]> post(DaemonApi api, boolean drain, byte[] body, String authorization) {
        AdminEndpoints.authorize(api.adminToken(), authorization);
        DrainRequest request;
        try {
            request = DrainRequest.parse(body);
        } catch (DrainException e) {
            throw error(e);
        }
        return (drain ? api.drain(request) : api.undrain(request)).handle((result, failure) -> {
            if (failure == null) {
                return RestJson.bytes(result);
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof DrainException d) {
                throw error(d);
            }
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        });
    }

    /** {@code GET /api/v1/drains}. */
    static CompletableFuture<byte[]> list(DaemonApi api) {
        return api.drained().thenApply(RestJson::bytes);
    }

    private static RestError error(DrainException e) {
        HttpResponseStatus status = switch (e.kind()) {
            case BAD_REQUEST -> HttpResponseStatus.BAD_REQUEST;
            case UNKNOWN -> HttpResponseStatus.NOT_FOUND;
            case CONFLICT -> HttpResponseStatus.CONFLICT;
            case BUSY -> HttpResponseStatus.TOO_MANY_REQUESTS;
            case NOT_ROUTED -> HttpResponseStatus.SERVICE_UNAVAILABLE;
        };
        return new RestError(status, e.getMessage());
    }
}
