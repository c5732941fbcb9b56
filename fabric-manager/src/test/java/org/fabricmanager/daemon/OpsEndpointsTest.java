package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.discovery.DiscoveryManager;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.detector.DetectorMetrics;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} parses as Prometheus text with the documented families, {@code /health/live} and
 * {@code /health/ready} answer 200/503 as the fabric goes from nothing connected to converged.
 */
class OpsEndpointsTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path state;

    @Test
    void healthFollowsConvergenceAndMetricsParseAsPrometheusText() throws Exception {
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(DaemonSimulationTest.config(state,
                DaemonSimulationTest.SPEC), StartOptions.of(List.of()).engine(new HopTestEngine()))) {
            String url = daemon.restUrl();
            HttpResponse<String> live = get(url + "/health/live");
            assertThat(live.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(live.body()).get("status").asText()).isEqualTo("UP");

            HttpResponse<String> notReady = get(url + "/health/ready");
            assertThat(notReady.statusCode()).as(notReady.body()).isEqualTo(503);
            JsonNode why = JSON.readTree(notReady.body());
            assertThat(why.get("ready").asBoolean()).isFalse();
            assertThat(why.get("state").asText()).isEqualTo("DISCOVERING");
            assertThat(why.get("reason").asText()).isEqualTo("no switch has connected yet");

            // the detector's member in the daemon registers into the daemon's registry
            new DetectorMetrics(daemon.registry());
            daemon.metrics().fault(DaemonMetrics.FaultType.LINK);
            daemon.metrics().fault(DaemonMetrics.FaultType.LINK);
            daemon.metrics().faultToConverged(180.5);

            try (FabricSimulator sim = new FabricSimulator(PgftGenerator.generate(DaemonSimulationTest.SPEC),
                    new AgentSettings(new InetSocketAddress("127.0.0.1", daemon.southboundAddress().getPort()), 65536,
                            1000, 5000, 20, 300), null, 1, null, 1)) {
                sim.start();
                DaemonSimulationTest.await(daemon, s -> s.state() == DaemonState.CONVERGED, "convergence");
                HttpResponse<String> ready = get(url + "/health/ready");
                assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
                JsonNode r = JSON.readTree(ready.body());
                assertThat(r.get("ready").asBoolean()).isTrue();
                assertThat(r.get("connected").asInt()).isEqualTo(8);
                assertThat(r.get("inSync").asInt()).isEqualTo(8);
                assertThat(r.has("reason")).isFalse();

                HttpResponse<String> m = get(url + "/metrics");
                assertThat(m.statusCode()).isEqualTo(200);
                assertThat(m.headers().firstValue("content-type")).get().asString().startsWith("text/plain; version=0.0.4");
                Map<String, Family> families = PrometheusText.parse(m.body());
                assertThat(families).containsKeys("fabric_routing_duration_seconds", "fabric_faults_converged_seconds",
                        "fabric_faults_total", "fabric_recoveries_total", "fabric_push_blocks_total",
                        "fabric_push_bytes_total", "fabric_switches_connected", "fabric_daemon_state",
                        "fabric_detector_heartbeats_received_total", "jvm_memory_used_bytes", "jvm_threads_live_threads",
                        "system_cpu_count", "process_uptime_seconds");
                assertThat(families.get("fabric_faults_converged_seconds").type()).isEqualTo("histogram");
                assertThat(families.get("fabric_switches_connected").type()).isEqualTo("gauge");
                assertThat(families.get("fabric_switches_connected").value("fabric_switches_connected", Map.of())).isEqualTo(8);
                assertThat(families.get("fabric_daemon_state").value("fabric_daemon_state", Map.of("state", "CONVERGED"))).isEqualTo(1);
                assertThat(families.get("fabric_daemon_state").value("fabric_daemon_state", Map.of("state", "PUSHING"))).isEqualTo(0);
                assertThat(families.get("fabric_faults_total").value("fabric_faults_total", Map.of("type", "link"))).isEqualTo(2);
                assertThat(families.get("fabric_faults_total").value("fabric_faults_total", Map.of("type", "switch"))).isEqualTo(0);
                assertThat(families.get("fabric_faults_converged_seconds").value("fabric_faults_converged_seconds_count",
                        Map.of())).isEqualTo(1);
                assertThat(families.get("fabric_faults_converged_seconds").value("fabric_faults_converged_seconds_sum",
                        Map.of())).isCloseTo(0.1805, org.assertj.core.data.Offset.offset(1e-9));
                assertThat(families.get("fabric_routing_duration_seconds").value("fabric_routing_duration_seconds_count",
                        Map.of())).isEqualTo(1);
                assertThat(families.get("fabric_push_blocks_total").value("fabric_push_blocks_total", Map.of())).isPositive();
                assertThat(families.get("fabric_detector_heartbeats_received_total")
                        .value("fabric_detector_heartbeats_received_total", Map.of())).isZero();
            }
            // the summary never goes stale: with every switch gone, the fabric is no longer INTACT
            Views.Status gone = DaemonSimulationTest.await(daemon, st -> st.switches().connected() == 0
                    && !"INTACT".equals(st.discovery().verdict()), "a verdict for the empty fabric");
            assertThat(gone.discovery().summary()).doesNotContain("INTACT");
            assertThat(get(url + "/health/ready").statusCode()).isEqualTo(503);
            HttpResponse<String> post = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/health/ready"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(get(url + "/health/other").statusCode()).isEqualTo(404);
            // the API behind the ops handler is untouched
            assertThat(get(url + "/api/v1/status").statusCode()).isEqualTo(200);
        }
    }

    /**
     * A fabric that is not the expected PGFT is routed, but loudly: the verdict gauge says MISWIRED,
     * {@code /health/ready} is 503 with the reason, and the WARN names the expected PGFT.
     */
    @Test
    void aMiswiredFabricMakesTheDaemonUnreadyWithTheReasonAndTheVerdictMetric() throws Exception {
        DaemonConfig base = DaemonSimulationTest.config(state, MISWIRED_EXPECTATION);
        DaemonConfig config = new DaemonConfig(base.southbound(), base.rest(), new DaemonConfig.FabricSection(
                MISWIRED_EXPECTATION.toString(), "any", List.of(), null, null), base.discovery(), base.routing(), base.push(),
                base.state(), base.faults(), base.security());
        try (LogCapture log = LogCapture.of(DiscoveryManager.class);
             FabricManagerDaemon daemon = FabricManagerDaemon.start(config, StartOptions.of(List.of()).engine(new HopTestEngine()));
             FabricSimulator sim = new FabricSimulator(PgftGenerator.generate(DaemonSimulationTest.SPEC),
                     new AgentSettings(new InetSocketAddress("127.0.0.1", daemon.southboundAddress().getPort()), 65536,
                             1000, 5000, 20, 300), null, 1, null, 1)) {
            sim.start();
            Views.Status s = DaemonSimulationTest.await(daemon, st -> st.state() == DaemonState.CONVERGED
                    && "MISWIRED".equals(st.discovery().verdict()), "a routed, miswired fabric");
            String url = daemon.restUrl();
            HttpResponse<String> ready = get(url + "/health/ready");
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(503);
            JsonNode r = JSON.readTree(ready.body());
            assertThat(r.get("ready").asBoolean()).isFalse();
            assertThat(r.get("state").asText()).isEqualTo("CONVERGED");
            assertThat(r.get("reason").asText()).startsWith("the fabric is not the expected " + MISWIRED_EXPECTATION)
                    .contains(s.discovery().summary());
            Map<String, Family> families = PrometheusText.parse(get(url + "/metrics").body());
            Family verdict = families.get("fabric_discovery_verdict");
            assertThat(verdict.type()).isEqualTo("gauge");
            assertThat(verdict.value("fabric_discovery_verdict", Map.of("verdict", "MISWIRED"))).isEqualTo(1);
            assertThat(verdict.value("fabric_discovery_verdict", Map.of("verdict", "INTACT"))).isEqualTo(0);
            assertThat(log.events()).anySatisfy(e -> {
                assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
                assertThat(e.getFormattedMessage()).startsWith("the fabric is not the expected " + MISWIRED_EXPECTATION);
            });
        }
    }

    /** Eight switches like {@link DaemonSimulationTest#SPEC}, but two end nodes per leaf instead of four. */
    static final PgftSpec MISWIRED_EXPECTATION = PgftSpec.parse("PGFT(2;2,4;1,4;1,1)");

    static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** One metric family: its TYPE and its samples (name, labels, value). */
    record Family(String name, String type, List<Sample> samples) {
        double value(String sample, Map<String, String> labels) {
            return samples.stream().filter(s -> s.name().equals(sample) && s.labels().equals(labels)).findFirst()
                    .orElseThrow(() -> new AssertionError("no sample " + sample + labels + " in " + samples)).value();
        }
    }

    record Sample(String name, Map<String, String> labels, double value) {
    }

    /**
     * A strict parser of the Prometheus text format 0.0.4: every line is blank, a {@code # HELP} or
     * {@code # TYPE} comment, or a sample {@code name{label="value",...} value [timestamp]} of the family
     * last typed; names and label names must be valid; values parse as floats (NaN, ±Inf included).
     */
    static final class PrometheusText {
        static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
        static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") (.*)");
        static final Pattern TYPE = Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped)");
        static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(?:\\{(.*)})? (\\S+)(?: (-?\\d+))?");
        static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\\\n]|\\\\[\\\\\"n])*)\"(,|$)");

        static Map<String, Family> parse(String text) {
            assertThat(text).endsWith("\n");
            Map<String, Family> families = new LinkedHashMap<>();
            Family current = null;
            int lineNo = 0;
            for (String line : text.split("\n")) {
                lineNo++;
                String where = "line " + lineNo + ": " + line;
                if (line.isEmpty()) {
                    continue;
                }
                if (line.startsWith("#")) {
                    Matcher t = TYPE.matcher(line);
                    if (t.matches()) {
                        assertThat(families).as("duplicate TYPE, " + where).doesNotContainKey(t.group(1));
                        current = new Family(t.group(1), t.group(2), new ArrayList<>());
                        families.put(current.name(), current);
                    } else {
                        assertThat(HELP.matcher(line).matches()).as("comment neither HELP nor TYPE, " + where).isTrue();
                    }
                    continue;
                }
                Matcher s = SAMPLE.matcher(line);
                assertThat(s.matches()).as("not a sample, " + where).isTrue();
                assertThat(current).as("sample before any TYPE, " + where).isNotNull();
                String name = s.group(1);
                assertThat(belongs(name, current)).as("sample outside family " + current.name() + ", " + where).isTrue();
                Map<String, String> labels = new HashMap<>();
                if (s.group(2) != null && !s.group(2).isEmpty()) {
                    Matcher l = LABEL.matcher(s.group(2));
                    int end = 0;
                    while (l.find() && l.start() == end) {
                        assertThat(labels.put(l.group(1), l.group(2))).as("duplicate label, " + where).isNull();
                        end = l.end();
                    }
                    assertThat(end).as("bad labels, " + where).isEqualTo(s.group(2).length());
                }
                if (current.type().equals("histogram") && name.endsWith("_bucket")) {
                    assertThat(labels).as("bucket without le, " + where).containsKey("le");
                }
                current.samples().add(new Sample(name, Map.copyOf(labels), value(s.group(3), where)));
            }
            return families;
        }

        private static boolean belongs(String sample, Family family) {
            String f = family.name();
            return switch (family.type()) {
                case "histogram" -> sample.equals(f + "_bucket") || sample.equals(f + "_count") || sample.equals(f + "_sum")
                        || sample.equals(f + "_created");
                case "summary" -> sample.equals(f) || sample.equals(f + "_count") || sample.equals(f + "_sum")
                        || sample.equals(f + "_created");
                case "counter" -> sample.equals(f) || sample.equals(f + "_created");
                default -> sample.equals(f);
            };
        }

        private static double value(String text, String where) {
            return switch (text) {
                case "NaN" -> Double.NaN;
                case "+Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                default -> {
                    try {
                        yield Double.parseDouble(text);
                    } catch (NumberFormatException e) {
                        throw new AssertionError("bad value '" + text + "', " + where);
                    }
                }
            };
        }
    }
}
