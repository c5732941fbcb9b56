package org.fabricmanager.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A real HTTP server on loopback that answers each path with the JSON a test put in {@link #answers} (404 with
 * {@code notFound} for the others) and keeps the method and body of the last request to each path: the daemon's
 * REST API as the CLI sees it, in the shapes of docs/rest-api.md. Like the daemon, it can refuse a request without
 * the admin token ({@link #requireToken}).
 */
final class FixedJsonServer implements AutoCloseable {
    /** What the daemon answers a request without the admin token. */
    static final String UNAUTHORIZED = "{\"error\":\"missing 'Authorization: Bearer <token>' header\"}";

    /** The answer to each path. */
    final Map<String, String> answers = new ConcurrentHashMap<>();
    /** The body of the last request to each path. */
    final Map<String, String> requests = new ConcurrentHashMap<>();
    /** The method of the last request to each path. */
    final Map<String, String> methods = new ConcurrentHashMap<>();
    private final HttpServer server;
    private volatile String token;
    private volatile Set<String> open = Set.of();

    FixedJsonServer(String notFound) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            methods.put(path, exchange.getRequestMethod());
            requests.put(path, new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            boolean authorized = token == null || open.contains(path)
                    || ("Bearer " + token).equals(exchange.getRequestHeaders().getFirst("Authorization"));
            String body = answers.get(path);
            byte[] bytes = (!authorized ? UNAUTHORIZED : body == null ? notFound : body).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json; charset=utf-8");
            exchange.sendResponseHeaders(!authorized ? 401 : body == null ? 404 : 200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
    }

    /** Answers 401 to every request without "Authorization: Bearer TOKEN", but to the paths in {@code open}. */
    FixedJsonServer requireToken(String token, Set<String> open) {
        this.open = Set.copyOf(open);
        this.token = token;
        return this;
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
