package org.fabricmanager.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A real HTTP server on loopback that answers each path with the JSON a test put in {@link #answers} (404 with
 * {@code notFound} for the others) and keeps the body of the last request to each path: the daemon's REST API as
 * the CLI sees it, in the shapes of docs/rest-api.md.
 */
final class FixedJsonServer implements AutoCloseable {
    /** The answer to each path. */
    final Map<String, String> answers = new ConcurrentHashMap<>();
    /** The body of the last request to each path. */
    final Map<String, String> requests = new ConcurrentHashMap<>();
    private final HttpServer server;

    FixedJsonServer(String notFound) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            requests.put(path, new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            String body = answers.get(path);
            byte[] bytes = (body == null ? notFound : body).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json; charset=utf-8");
            exchange.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
    }

    /** The {@code --url} of this server. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
