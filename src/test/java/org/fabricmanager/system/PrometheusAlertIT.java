package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.sim.SimEndpoints;
import org.fabricmanager.testing.Await;
import org.fabricmanager.testing.RealParts;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped alert rules in a real Prometheus server ({@code /usr/bin/prometheus}, Debian's {@code prometheus}): it
 * scrapes a daemon routing a simulated fabric, a cable is taken down through the demo's endpoint
 * ({@code POST /api/v1/sim/links/down}), and the server's API shows {@code FabricLinksDown} firing, then gone once the
 * cable is back. The rules are the shipped file with every {@code for:} cut to {@value #FOR} (the shipped 5 minutes
 * would make this test wait 5 minutes; {@code conf/fabric-manager-alerts-test.yml} holds the real durations to
 * account); everything else, the expressions, labels and annotations, is as shipped.
 */
class PrometheusAlertIT {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,4;1,1)");
    static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
    static final String FOR = "2s";
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path state;
    @TempDir
    Path work;

    @Test
    void aCableDownFiresFabricLinksDownInPrometheusAndItsRepairResolvesIt() throws Exception {
        RealParts.require(Files.isExecutable(PROMETHEUS), "the Prometheus server is not installed (Debian: prometheus)");
        Path shipped = Path.of(System.getProperty("fm.home", ".."), "conf", "fabric-manager-alerts.yml");
        String rules = Files.readString(shipped).replaceAll("(?m)^(\\s+)for: \\S+$", "$1for: " + FOR);
        assertThat(rules).contains("for: " + FOR).doesNotContain("for: 5m");
        Files.writeString(work.resolve("rules.yml"), rules);

        SimEndpoints simEndpoints = new SimEndpoints();
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(SystemSupport.config(state, SPEC),
                StartOptions.of(List.of()).rest(List.of(simEndpoints)));
             FabricSimulator sim = SystemSupport.simulator(PgftGenerator.generate(SPEC), daemon.southboundAddress().getPort())) {
            sim.start();
            simEndpoints.attach(sim);
            SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED
                    && st.switches().connected() == SPEC.totalSwitchCount(), "first convergence");
            URI rest = URI.create(daemon.restUrl());
            String target = rest.getHost() + ":" + rest.getPort();
            try (Server prometheus = Server.start(work, target)) {
                // scraped: the gauge is in the server, at 0, and the alert is not active
                Await.value("Prometheus to scrape fabric_links_down", Duration.ofSeconds(30),
                        () -> prometheus.api("/api/v1/query?query=" + URLEncoder.encode("fabric_links_down", StandardCharsets.UTF_8)),
                        r -> r.path("data").path("result").size() == 1);
                assertThat(linksDownAlert(prometheus)).isNull();

                long leaf = PgftGenerator.switchGuid(1, 2);
                int up = SPEC.m(1) + 1; // a leaf's ports: its m1 nodes first, then its up-links
                assertThat(simPost(daemon, "links/down?guid=" + Guids.format(leaf) + "&port=" + up)).isEqualTo(200);
                JsonNode firing = Await.value("FabricLinksDown firing", Duration.ofSeconds(30),
                        () -> linksDownAlert(prometheus), a -> a != null && a.path("state").asText().equals("firing"));
                assertThat(firing.path("labels").path("instance").asText()).isEqualTo(target);
                assertThat(firing.path("labels").path("job").asText()).isEqualTo("fabric-manager");
                assertThat(firing.path("labels").path("severity").asText()).isEqualTo("warning");
                assertThat(firing.path("annotations").path("summary").asText())
                        .isEqualTo("1 links of the fabric are down or quarantined (routed around)");

                assertThat(simPost(daemon, "links/up?guid=" + Guids.format(leaf) + "&port=" + up)).isEqualTo(200);
                Await.value("FabricLinksDown resolved", Duration.ofSeconds(30), () -> linksDownAlert(prometheus) == null,
                        Boolean::booleanValue);
                JsonNode rule = Await.value("the rule inactive", Duration.ofSeconds(10), () -> rule(prometheus, "FabricLinksDown"),
                        r -> r.path("state").asText().equals("inactive"));
                assertThat(rule.path("health").asText()).isEqualTo("ok");
                assertThat(rule.path("duration").asDouble()).isEqualTo(2.0);
            }
        }
    }

    /** The active FabricLinksDown alert (pending or firing) on the server, or null. */
    private static JsonNode linksDownAlert(Server prometheus) throws Exception {
        for (JsonNode a : prometheus.api("/api/v1/alerts").path("data").path("alerts")) {
            if (a.path("labels").path("alertname").asText().equals("FabricLinksDown")) {
                return a;
            }
        }
        return null;
    }

    private static JsonNode rule(Server prometheus, String alert) throws Exception {
        for (JsonNode g : prometheus.api("/api/v1/rules?type=alert").path("data").path("groups")) {
            for (JsonNode r : g.path("rules")) {
                if (r.path("name").asText().equals(alert)) {
                    return r;
                }
            }
        }
        throw new AssertionError("no rule " + alert + " loaded");
    }

    private static int simPost(FabricManagerDaemon d, String action) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(d.restUrl() + "/api/v1/sim/" + action))
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        return HTTP.send(r, HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    /** A Prometheus server on a free loopback port, scraping and evaluating every second; its log in its directory. */
    record Server(Process process, String url, Path log) implements AutoCloseable {
        static Server start(Path dir, String target) throws Exception {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Path config = dir.resolve("prometheus.yml");
            Files.writeString(config, String.join("\n",
                    "global:",
                    "  scrape_interval: 1s",
                    "  evaluation_interval: 1s",
                    "rule_files:",
                    "  - " + dir.resolve("rules.yml"),
                    "scrape_configs:",
                    "  - job_name: fabric-manager",
                    "    static_configs:",
                    "      - targets: ['" + target + "']",
                    ""));
            Path log = dir.resolve("prometheus.log");
            Process p = new ProcessBuilder(PROMETHEUS.toString(), "--config.file=" + config,
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            Server server = new Server(p, "http://127.0.0.1:" + port, log);
            try {
                Await.until("Prometheus ready (log: " + log + ")", Duration.ofSeconds(30), server::ready);
            } catch (RuntimeException | Error e) {
                server.close();
                throw e;
            }
            return server;
        }

        private boolean ready() {
            assertThat(process.isAlive()).as("prometheus exited: %s", log).isTrue();
            try {
                return HTTP.send(HttpRequest.newBuilder(URI.create(url + "/-/ready")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        }

        JsonNode api(String path) throws Exception {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            return JSON.readTree(r.body());
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
