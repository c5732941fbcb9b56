package org.fabricmanager.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FabricGraph;
import org.fabricmanager.daemon.api.LinkLoad;
import org.fabricmanager.daemon.api.SwitchState;
import org.fabricmanager.daemon.testing.UnansweredApi;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The status page's files and endpoints through the real REST server on loopback, with raw requests so
 * that nothing on the client side normalises a path: content types and caching headers, 304 on a matching
 * entity tag, 404 for any other name (traversal included), 405 for other methods, and the fabric endpoints'
 * parameter checks. The page's files must not name any outside URL.
 */
class StatusPageHandlerTest {
    private static final Pattern STATUS = Pattern.compile("^HTTP/1\\.1 (\\d{3})");

    private final PageApi api = new PageApi();
    private RestServer server;
    private int port;

    @BeforeEach
    void start() throws Exception {
        server = new RestServer(new RestListener("127.0.0.1", 0, null,
                new RestRejections(null, 10_000, System::currentTimeMillis)), 1, api, () -> "", List.of());
        port = server.start().getPort();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** One request on a fresh connection; the raw answer (status line, headers in lower case, body). */
    private Answer request(String method, String target, String extraHeaders) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write((method + " " + target + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n"
                    + extraHeaders + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            in.transferTo(got);
            String text = got.toString(StandardCharsets.UTF_8);
            int split = text.indexOf("\r\n\r\n");
            Matcher m = STATUS.matcher(text);
            return new Answer(m.find() ? Integer.parseInt(m.group(1)) : -1,
                    text.substring(0, split).toLowerCase(Locale.ROOT), text.substring(split + 4));
        }
    }

    private record Answer(int status, String headers, String body) {
        String header(String name) {
            for (String line : headers.split("\r\n")) {
                if (line.startsWith(name + ":")) {
                    return line.substring(name.length() + 1).trim();
                }
            }
            return null;
        }
    }

    @Test
    void servesThePageAndItsFilesWithTheirContentTypesAndCachingHeaders() throws Exception {
        Map<String, String> types = Map.of("/", "text/html; charset=utf-8", "/index.html", "text/html; charset=utf-8",
                "/ui/status.js", "text/javascript; charset=utf-8", "/ui/status.css", "text/css; charset=utf-8",
                "/ui/ports.js", "text/javascript; charset=utf-8",
                "/ui/favicon.svg", "image/svg+xml");
        for (Map.Entry<String, String> e : types.entrySet()) {
            Answer a = request("GET", e.getKey(), "");
            assertThat(a.status()).as(e.getKey()).isEqualTo(200);
            assertThat(a.header("content-type")).as(e.getKey()).isEqualTo(e.getValue());
            assertThat(a.header("cache-control")).as(e.getKey()).isEqualTo("no-cache");
            assertThat(a.header("etag")).as(e.getKey()).matches("\"[0-9a-f]{24}\"");
            assertThat(a.header("x-content-type-options")).isEqualTo("nosniff");
            assertThat(a.header("content-security-policy")).contains("default-src 'none'").contains("script-src 'self'")
                    .contains("connect-src 'self'");
            assertThat(a.body()).isNotEmpty();
        }
        Answer page = request("GET", "/", "");
        // relative URLs only: the page works under any host, port and scheme (rest.tls)
        assertThat(page.body()).contains("src=\"ui/status.js\"").contains("href=\"ui/status.css\"")
                .contains("id=\"switch-count\"");
    }

    @Test
    void aMatchingEntityTagGets304WithoutABody() throws Exception {
        String etag = request("GET", "/ui/status.js", "").header("etag");
        Answer again = request("GET", "/ui/status.js", "If-None-Match: " + etag + "\r\n");
        assertThat(again.status()).isEqualTo(304);
        assertThat(again.body()).isEmpty();
        assertThat(request("GET", "/ui/status.js", "If-None-Match: \"stale\"\r\n").status()).isEqualTo(200);
    }

    @Test
    void anyOtherNameIs404WhateverItsDotsAndEscapes() throws Exception {
        for (String target : new String[] {"/ui/nothing.js", "/ui/", "/ui/../../etc/passwd", "/ui/%2e%2e/%2e%2e/etc/passwd",
                "/ui/..%2f..%2fetc%2fpasswd", "/ui/./status.js", "/ui//status.js", "/ui/STATUS.JS", "/ui/status.js/",
                "/ui/%73tatus.js.bak", "/ui/..\\..\\etc\\passwd"}) {
            Answer a = request("GET", target, "");
            assertThat(a.status()).as(target).isIn(400, 404);
            assertThat(a.body()).as(target).doesNotContain("root:").doesNotContain("function");
        }
        assertThat(api.calls).as("no daemon query for a file").isEmpty();
    }

    @Test
    void onlyGetAndHeadAreAnswered() throws Exception {
        Answer post = request("POST", "/", "Content-Length: 0\r\n");
        assertThat(post.status()).isEqualTo(405);
        assertThat(post.header("allow")).isEqualToIgnoringCase("GET, HEAD");
        assertThat(request("DELETE", "/api/v1/fabric/graph", "").status()).isEqualTo(405);
        Answer head = request("HEAD", "/ui/status.css", "");
        assertThat(head.status()).isEqualTo(200);
        assertThat(Integer.parseInt(head.header("content-length"))).isGreaterThan(100);
        assertThat(head.body()).isEmpty();
    }

    @Test
    void thePageNamesNoOutsideUrl() throws Exception {
        for (String file : new String[] {"/", "/ui/status.js", "/ui/status.css", "/ui/favicon.svg"}) {
            String body = request("GET", file, "").body();
            List<String> urls = new ArrayList<>();
            Matcher m = Pattern.compile("(?i)(https?:)?//[a-z0-9.-]+\\.[a-z]{2,}[^\\s\"')]*").matcher(body);
            while (m.find()) {
                urls.add(m.group());
            }
            // the SVG namespace is a name, not something the browser loads
            assertThat(urls).as(file).allMatch(u -> u.equals("http://www.w3.org/2000/svg"));
            assertThat(body).as(file).doesNotContain("@import").doesNotContain("url(");
        }
    }

    @Test
    void fabricEndpointsCheckTheirParametersAndMapFailures() throws Exception {
        Answer graph = request("GET", "/api/v1/fabric/graph", "");
        assertThat(graph.status()).isEqualTo(200);
        assertThat(graph.header("content-type")).isEqualTo("application/json; charset=utf-8");
        assertThat(graph.header("cache-control")).isEqualTo("no-store");
        assertThat(graph.body()).contains("\"switchCount\":1").contains("\"state\":\"IN_SYNC\"");

        assertThat(request("GET", "/api/v1/fabric/load", "").status()).as("shift by default").isEqualTo(200);
        assertThat(api.calls).contains("load shift");
        Answer random = request("GET", "/api/v1/fabric/load?pattern=random:10:7", "");
        assertThat(random.body()).contains("\"pattern\":\"random:10:7\"");
        Answer bad = request("GET", "/api/v1/fabric/load?pattern=bisect", "");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body()).contains("unknown traffic pattern 'bisect'");
        assertThat(request("GET", "/api/v1/fabric/load?pattern=random:100000", "").status()).isEqualTo(400);
        assertThat(request("GET", "/api/v1/fabric/load?pattern=shift&pattern=all2all", "").status()).isEqualTo(400);
        assertThat(request("GET", "/api/v1/fabric/nothing", "").status()).isEqualTo(404);
        api.busy = true;
        Answer busy = request("GET", "/api/v1/fabric/load?pattern=all2all", "");
        assertThat(busy.status()).isEqualTo(503);
        assertThat(busy.body()).contains("already running");
        // other paths still reach the REST API behind this handler
        assertThat(request("GET", "/api/v1/status", "").status()).isEqualTo(503);
        assertThat(request("GET", "/health/live", "").status()).isEqualTo(200);
    }

    /** Answers the page's two queries; every other query fails (503). */
    private static final class PageApi extends UnansweredApi {
        final List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile boolean busy;

        @Override
        public CompletableFuture<FabricGraph> fabricGraph() {
            calls.add("graph");
            return CompletableFuture.completedFuture(new FabricGraph(3, "dmodc", DaemonState.CONVERGED, 1,
                    Map.of(SwitchState.IN_SYNC, 1), 1, List.of(new FabricGraph.Node("0x0000000000000001", "s1", 1, 0,
                    SwitchState.IN_SYNC)), List.of(), Map.of("up", 0), List.of(), 0));
        }

        @Override
        public CompletableFuture<LinkLoad> linkLoad(TrafficPattern pattern) {
            calls.add("load " + pattern);
            if (busy) {
                return CompletableFuture.failedFuture(new IllegalStateException("4 link-load analyses are already running"));
            }
            return CompletableFuture.completedFuture(new LinkLoad(3, "dmodc", pattern.toString(), 1, 0, 0, 0, 0.1,
                    List.of(), new long[0]));
        }

        @Override
        protected <T> CompletableFuture<T> unanswered() {
            calls.add("other");
            return CompletableFuture.failedFuture(new IllegalStateException("not in this test"));
        }
    }
}
