package org.fabricmanager.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.testing.UnansweredApi;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The REST server against abusive clients, over real sockets on loopback: each malformed request gets its
 * status and a closed connection, 405s name the allowed methods, pipelined requests are answered in order,
 * and a client that pipelines without reading the answers cannot make the daemon answer (and buffer) more
 * than a bounded number of them.
 */
class RestServerHardeningTest {
    private static final Pattern STATUS = Pattern.compile("HTTP/1\\.1 (\\d{3})");

    private final CountingApi api = new CountingApi();
    private final RestRejections rejections = new RestRejections(null, 10_000, System::currentTimeMillis);
    private RestServer server;
    private int port;

    private void start(io.netty.handler.ssl.SslContext tls) throws Exception {
        startOn(new RestListener("127.0.0.1", 0, tls, rejections));
    }

    private void startOn(RestListener listener) throws Exception {
        server = new RestServer(listener, 1, api, () -> "", List.of());
        port = server.start().getPort();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void malformedRequestsGetTheirStatusAndAClosedConnection() throws Exception {
        start(null);
        assertThat(exchange("GET /api/v1/status?" + "x".repeat(5_000) + " HTTP/1.1\r\nHost: a\r\n\r\n"))
                .as("request line beyond 4,096 bytes").startsWith("414").endsWith("closed");
        assertThat(exchange("GET /api/v1/status HTTP/1.1\r\nHost: a\r\nX-Long: " + "y".repeat(10_000) + "\r\n\r\n"))
                .as("headers beyond 8,192 bytes").startsWith("431").endsWith("closed");
        assertThat(exchange("GET /api/v1/switches/%zz HTTP/1.1\r\nHost: a\r\n\r\n"))
                .as("path with a bad percent-escape").startsWith("400").endsWith("closed");
        assertThat(exchange("GET /api/v1/events?since=%4 HTTP/1.1\r\nHost: a\r\n\r\n"))
                .as("query with a truncated percent-escape").startsWith("400").endsWith("closed");
        assertThat(exchange("POST /api/v1/switches/0x1%00/admit HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))
                .as("a GUID with a NUL").startsWith("400").contains("bad guid '0x1\\\\u0000'").endsWith("closed");
        assertThat(exchange("GET /api/v1/switches/%200x1/ports HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))
                .as("a GUID with a space").startsWith("400").endsWith("closed");
        assertThat(exchange("GET /metrics?%G0 HTTP/1.1\r\nHost: a\r\n\r\n"))
                .as("operations endpoint, bad escape").startsWith("400").endsWith("closed");
        assertThat(exchange("\u0001\u0002garbage\r\n\r\n")).as("not HTTP").startsWith("400").endsWith("closed");
        assertThat(rejections.total()).isEqualTo(6);
        assertThat(api.calls.get()).as("no endpoint saw any of them").isZero();
    }

    @Test
    void aRequestWhoseBodyLengthIsAmbiguousIsAnswered400AndItsConnectionClosed() throws Exception {
        start(null);
        // a proxy reading Content-Length would forward the GET as a request of its own; Netty alone reads chunked
        String both = "POST /api/v1/whatif HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api/v1/switches/pending HTTP/1.1\r\nHost: a\r\n\r\n";
        String answer = exchange(both);
        assertThat(answer).as("Content-Length and Transfer-Encoding").startsWith("400")
                .contains("both content-length and transfer-encoding").contains("connection: close").endsWith("closed");
        assertThat(answer.split("http/1\\.1 ", -1)).as("one answer, the pipelined GET never read").hasSize(2);
        assertThat(exchange("POST /api/v1/reroute HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n"))
                .as("a coding other than chunked").startsWith("400").endsWith("closed");
        assertThat(exchange("POST /api/v1/reroute HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")).as("chunked twice").startsWith("400")
                .endsWith("closed");
        assertThat(rejections.total()).isEqualTo(3);
        assertThat(api.calls.get()).as("no endpoint saw any of them").isZero();
        assertThat(exchange("POST /api/v1/switches/pending HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
                + "Connection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n")).as("chunked alone is read as before")
                .startsWith("405").endsWith("closed");
        assertThat(exchange("HEAD /api/v1/switches/pending HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))
                .as("HEAD: headers only").startsWith("200").contains("content-length: 2").endsWith("\n\n closed");
    }

    @Test
    void aBodyTooLongIsAnswered413WithAJsonErrorAndTheConnectionClosed() throws Exception {
        start(null);
        String body = "{" + "x".repeat(70_000) + "}";
        assertThat(exchange("POST /api/v1/whatif HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n" + body
                + "GET /health/live HTTP/1.1\r\nHost: a\r\n\r\n"))
                .as("a body beyond 64 KiB, a request pipelined after it")
                .startsWith("413").contains("{\"error\":\"request body longer than 65536 bytes\"}")
                .contains("connection: close").endsWith("closed");
        assertThat(rejections.total()).isEqualTo(1);
        assertThat(api.calls.get()).as("no endpoint saw it").isZero();
    }

    @Test
    void connectionsBeyondTheCapOrTheirPeersShareAreAnswered503AndTheOthersServed() throws Exception {
        startOn(new RestListener("127.0.0.1", 0, null, rejections, 8, 60_000)); // 2 per peer address
        List<Socket> held = new ArrayList<>();
        try {
            for (int peer = 1; peer <= 4; peer++) {
                InetAddress from = InetAddress.getByName("127.0.0." + peer);
                for (int i = 0; i < 2; i++) {
                    held.add(new Socket(InetAddress.getLoopbackAddress(), port, from, 0));
                }
            }
            Await.until("8 connections open on the server", () -> server.openConnections() == 8);
            try (Socket third = new Socket(InetAddress.getLoopbackAddress(), port, InetAddress.getByName("127.0.0.1"), 0);
                 Socket ninth = new Socket(InetAddress.getLoopbackAddress(), port, InetAddress.getByName("127.0.0.9"), 0)) {
                third.setSoTimeout(10_000);
                ninth.setSoTimeout(10_000);
                third.getOutputStream().write("GET /api/v1/status HTTP/1.1\r\nHost: a\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                String refused = readToEnd(third);
                assertThat(refused).as("a peer's third connection is answered 503 and closed").startsWith("HTTP/1.1 503")
                        .contains("Retry-After: 1", "Connection: close", "{\"error\":\"too many connections");
                assertThat(readToEnd(ninth)).as("a connection over the listener's cap, its request never sent")
                        .startsWith("HTTP/1.1 503");
            }
            assertThat(rejections.total()).isEqualTo(2);
            Socket first = held.get(0);
            first.setSoTimeout(10_000);
            first.getOutputStream().write("GET /health/live HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(readToEnd(first)).as("the connections within the cap are served").startsWith("HTTP/1.1 200");
            Await.until("its slot freed", () -> server.openConnections() == 7);
            try (Socket again = new Socket("127.0.0.1", port)) {
                again.setSoTimeout(10_000);
                again.getOutputStream().write("GET /health/live HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                assertThat(readToEnd(again)).as("a slot freed serves a new connection").startsWith("HTTP/1.1 200");
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void aConnectionWithNoRequestInProgressIsClosedWhenIdle() throws Exception {
        startOn(new RestListener("127.0.0.1", 0, null, rejections, 16, 300));
        try (Socket silent = new Socket("127.0.0.1", port)) {
            silent.setSoTimeout(10_000);
            assertThat(readToEnd(silent)).as("a connection that never sends a request is closed").isEmpty();
        }
        try (Socket keptAlive = new Socket("127.0.0.1", port)) {
            keptAlive.setSoTimeout(10_000);
            keptAlive.getOutputStream().write("GET /health/live HTTP/1.1\r\nHost: a\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(readToEnd(keptAlive)).as("answered, then closed once idle").startsWith("HTTP/1.1 200");
        }
        Await.until("no connection left open", () -> server.openConnections() == 0);
    }

    /** What the server sends until it closes the connection (a read timeout fails the test). */
    private static String readToEnd(Socket s) throws IOException {
        try {
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (java.net.SocketException e) {
            return ""; // reset: closed
        }
    }

    @Test
    void methodNotAllowedNamesTheAllowedMethods() throws Exception {
        start(null);
        assertThat(exchange("DELETE /api/v1/status HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))
                .startsWith("405").contains("allow: get, head");
        assertThat(exchange("GET /api/v1/reroute HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))
                .startsWith("405").contains("allow: post");
        assertThat(exchange("PUT /api/v1/switches/0x0000000000000001/admit HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))
                .startsWith("405").contains("allow: post");
        assertThat(exchange("POST /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
                .startsWith("405").contains("allow: get, head");
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        start(null);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET /api/v1/switches/pending HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "GET /api/v1/nothing HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "GET /health/live HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "DELETE /api/v1/status HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            List<String> statuses = new ArrayList<>();
            Matcher m = STATUS.matcher(all);
            while (m.find()) {
                statuses.add(m.group(1));
            }
            assertThat(statuses).containsExactly("200", "404", "200", "405");
        }
    }

    @Test
    void aClientThatPipelinesWithoutReadingCannotMakeTheDaemonAnswerWithoutBound() throws Exception {
        api.pendingEntries = 2_000; // ~200 KB per answer: the kernel's socket buffers hold a few dozen
        start(null);
        int sent = 200_000; // 10 MB: more than the kernel's buffers on both sides hold
        byte[] request = "GET /api/v1/switches/pending HTTP/1.1\r\nHost: a\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(4096);
            s.connect(new InetSocketAddress("127.0.0.1", port));
            OutputStream out = s.getOutputStream();
            // the writer blocks once the daemon stops reading: write from another thread, never read
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    for (int i = 0; i < sent; i++) {
                        out.write(request);
                    }
                } catch (IOException e) {
                    // the test closing the socket ends a blocked write
                }
            });
            // wait until the daemon stops answering: the count holds still for a second (without backpressure it
            // answers all the requests first, and the bound below fails)
            long[] last = {-1, System.nanoTime()};
            Await.until("the daemon to stop answering: its count still for a second", () -> {
                int now = api.calls.get();
                if (now != last[0]) {
                    last[0] = now;
                    last[1] = System.nanoTime();
                    return false;
                }
                return System.nanoTime() - last[1] >= 1_000_000_000L;
            });
            assertThat(api.calls.get()).as("answers made for %d pipelined requests nobody read", sent)
                    .isPositive().isLessThan(500);
            assertThat(writer).as("the daemon stopped reading the client").isNotDone();
        }
    }

    @Test
    void httpsWithTheConfiguredCertificate() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("test CA", Duration.ofDays(1), Clock.systemUTC());
        IssuedCertificate cert = ca.issueDaemon(List.of("localhost"), List.of(InetAddress.getByName("127.0.0.1")),
                Duration.ofDays(1));
        start(TlsContexts.https(List.of(cert.certificate(), ca.certificate()), cert.key()));
        assertThat(server.scheme()).isEqualTo("https");
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        HttpClient client = HttpClient.newBuilder().sslContext(ssl).build();
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                java.net.URI.create("https://localhost:" + port + "/api/v1/switches/pending")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("[]");
        assertThat(exchange("GET /api/v1/switches/pending HTTP/1.1\r\nHost: a\r\n\r\n"))
                .as("plain HTTP on the HTTPS port gets no answer").doesNotContain("200");
    }

    /** Sends {@code raw}, reads until the server closes (or 5 s): "STATUS response-in-lower-case closed|open". */
    private String exchange(String raw) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5_000);
            s.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            boolean closed;
            try {
                in.transferTo(got);
                closed = true;
            } catch (java.net.SocketTimeoutException e) {
                closed = false;
            } catch (java.net.SocketException e) {
                closed = true; // reset after the answer
            }
            String text = got.toString(StandardCharsets.ISO_8859_1);
            Matcher m = STATUS.matcher(text);
            String status = m.find() ? m.group(1) : "none";
            return status + " " + text.toLowerCase(java.util.Locale.ROOT).replace("\r", "") + " "
                    + (closed ? "closed" : "open");
        }
    }

    /** Answers every query with little, counting the calls that reach it. */
    private static final class CountingApi extends UnansweredApi {
        final AtomicInteger calls = new AtomicInteger();
        volatile int pendingEntries;

        @Override
        public CompletableFuture<List<Views.PendingSwitch>> pendingSwitches() {
            calls.incrementAndGet();
            List<Views.PendingSwitch> out = new ArrayList<>();
            for (int i = 0; i < pendingEntries; i++) {
                out.add(new Views.PendingSwitch("0x" + Long.toHexString(0x1000L + i), "switch-" + i, "/127.0.0.1:1",
                        "a new switch outside the expected fabric, waiting for an admin", i));
            }
            return CompletableFuture.completedFuture(out);
        }

        @Override
        protected <T> CompletableFuture<T> unanswered() {
            calls.incrementAndGet();
            return CompletableFuture.failedFuture(new IllegalStateException("not in this test"));
        }
    }
}
