package org.fabricmanager.daemon.rest;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A request the REST server answers with an error status and a JSON message ({@code {"error": ...}}):
 * thrown by endpoints and {@link RestExtension}s for bad parameters (400), unknown objects (404),
 * refused actions (401, 403) and the like.
 */
public final class RestError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient HttpResponseStatus status;

    public RestError(HttpResponseStatus status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public HttpResponseStatus status() {
        return status;
    }

    /** 404 for a path no endpoint serves. */
    public static RestError notFound(String path) {
        return new RestError(HttpResponseStatus.NOT_FOUND, "no such endpoint: " + path + " (see docs/rest-api.md)");
    }
}
