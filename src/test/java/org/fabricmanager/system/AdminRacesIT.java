package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The admin API under races (docs/rest-api.md): 8 clients drain, undrain and ask what-ifs (of failures and of a
 * rebalance) at once, a bounded number of times each, on 192 switches (a what-if takes long enough to overlap), while
 * the daemon re-routes for them. Every answer is 2xx, 409
 * (drained already, not drained) or 429 (a what-if or routing under way), never a 500, and the daemon logs no ERROR.
 */
class AdminRacesIT {
    private static final String TOKEN = "3b5d7f9a1c3e5a7c9e1b3d5f7a9c1e3b";
    private static final int CLIENTS = 8;
    private static final int REQUESTS_EACH = 40;

    @TempDir
    Path state;

    @Test
    void racingDrainsUndrainsAndWhatIfsAnswerOnly2xx409And429() throws Exception {
        PgftSpec spec = PgftSpec.parse("PGFT(3;8,8,8;1,8,8;1,1,1)");
        Fabric fabric = PgftGenerator.generate(spec);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        log.start();
        root.addAppender(log);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(SystemSupport.config(state, spec)
                .withAdminToken(TOKEN), List.of());
             FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            sim.start();
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == 192,
                    "the fabric converged");
            String base = "http://127.0.0.1:" + daemon.restAddress().getPort() + "/api/v1/";
            // uplinks of leaves (ports 9-16 of s1-x): drains that the what-if accepts
            List<String> links = List.of(link(1, 0, 9), link(1, 1, 10), link(1, 2, 11), link(1, 3, 12));
            Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
            Map<String, String> errors = new ConcurrentHashMap<>();
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                running.add(clients.submit(() -> {
                    for (int i = 0; i < REQUESTS_EACH; i++) {
                        String l = links.get((client + i) % links.size());
                        String[] call = switch ((client + i) % 4) {
                            case 0 -> new String[] {"drain", l};
                            case 1 -> new String[] {"undrain", l};
                            case 2 -> new String[] {"whatif", "{\"rebalance\":true}"};
                            default -> new String[] {"whatif", "{\"links\":[" + l + "]}"};
                        };
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + call[0]))
                                .timeout(Duration.ofSeconds(120)).header("Authorization", "Bearer " + TOKEN)
                                .POST(HttpRequest.BodyPublishers.ofString(call[1])).build(),
                                HttpResponse.BodyHandlers.ofString());
                        statuses.computeIfAbsent(r.statusCode(), k -> new AtomicInteger()).incrementAndGet();
                        if (r.statusCode() >= 500 || r.statusCode() == 400 || r.statusCode() == 404) {
                            errors.putIfAbsent(r.statusCode() + " " + call[0] + " " + call[1], r.body());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(5, TimeUnit.MINUTES);
            }
            Map<Integer, Integer> counts = new TreeMap<>();
            statuses.forEach((k, v) -> counts.put(k, v.get()));
            System.out.println("answers by status: " + counts);
            assertThat(errors).as("answers other than 2xx, 409 and 429 (counts %s)", counts).isEmpty();
            assertThat(counts.keySet()).as("statuses").allMatch(s -> s / 100 == 2 || s == 409 || s == 429);
            assertThat(counts).as("some drains and what-ifs went through").containsKey(200);
            assertThat(log.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
                    .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage()).toList()).as("ERROR lines").isEmpty();
        } finally {
            clients.shutdownNow();
            root.detachAppender(log);
        }
    }

    /** The drain body of the cable at port {@code port} of switch {@code index} of level {@code level}. */
    private static String link(int level, int index, int port) {
        return "{\"guid\":\"" + String.format("0x%016x", PgftGenerator.switchGuid(level, index)) + "\",\"port\":" + port + "}";
    }
}
