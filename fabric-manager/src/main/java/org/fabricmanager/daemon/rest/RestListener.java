package org.fabricmanager.daemon.rest;

import io.netty.handler.ssl.SslContext;

/**
 * Where and how a {@link RestServer} listens: its address and port (0: any free port), its HTTPS context
 * ({@code null}: plain HTTP) and where requests refused before any endpoint are counted.
 */
public record RestListener(String bind, int port, SslContext tls, RestRejections rejections) {
}
