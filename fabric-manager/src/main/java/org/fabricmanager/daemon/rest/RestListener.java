package org.fabricmanager.daemon.rest;

import io.netty.handler.ssl.SslContext;
import org.fabricmanager.daemon.config.Rest;

/**
 * Where and how a {@link RestServer} listens: its address and port (0: any free port), its HTTPS context
 * ({@code null}: plain HTTP), where requests refused before any endpoint are counted, how many connections it keeps
 * open at once (more are closed as soon as accepted) and how long a connection with no request in progress may stay
 * silent.
 */
public record RestListener(String bind, int port, SslContext tls, RestRejections rejections, int maxConnections,
                           int idleTimeoutMs) {
    /** The default connection bounds ({@code rest.maxConnections}, {@code rest.idleTimeoutMs}). */
    public RestListener(String bind, int port, SslContext tls, RestRejections rejections) {
        this(bind, port, tls, rejections, Rest.DEFAULT_MAX_CONNECTIONS,
                Rest.DEFAULT_IDLE_TIMEOUT_MS);
    }

    /** The listener {@code rest} configures, with {@code tls} its HTTPS context. */
    public static RestListener of(Rest rest, SslContext tls, RestRejections rejections) {
        return new RestListener(rest.bind(), rest.port(), tls, rejections, rest.maxConnections(), rest.idleTimeoutMs());
    }
}
