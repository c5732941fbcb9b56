package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.testing.RealParts;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped Prometheus alert rules and Grafana dashboard ({@code conf/}) query only metrics a running daemon
 * exports, and the new health gauges are among them; the rules pass {@code promtool check rules} and their unit tests
 * ({@code promtool test rules} over {@code conf/fabric-manager-alerts-test.yml}, a case per alert) where promtool is
 * installed.
 */
class MonitoringFilesTest {
    static final Path RULES = Path.of("..", "conf", "fabric-manager-alerts.yml");
    static final Path DASHBOARD = Path.of("..", "conf", "fabric-manager-dashboard.json");
    static final Path RULE_TESTS = Path.of("..", "conf", "fabric-manager-alerts-test.yml");
    private static final Pattern METRIC = Pattern.compile("\\bfabric_[a-z0-9_]+");

    @TempDir
    Path state;

    /** Every {@code expr} anywhere under {@code node}. */
    private static void exprs(JsonNode node, List<String> out) {
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                if (e.getKey().equals("expr") && e.getValue().isTextual()) {
                    out.add(e.getValue().asText());
                } else {
                    exprs(e.getValue(), out);
                }
            });
        } else if (node.isArray()) {
            node.forEach(n -> exprs(n, out));
        }
    }

    private static Set<String> metricsIn(List<String> queries) {
        Set<String> names = new TreeSet<>();
        for (String q : queries) {
            Matcher m = METRIC.matcher(q);
            while (m.find()) {
                names.add(m.group());
            }
        }
        return names;
    }

    @Test
    void theRulesAndTheDashboardQueryOnlyMetricsTheDaemonExports() throws Exception {
        List<String> rules = new ArrayList<>();
        exprs(new ObjectMapper(new YAMLFactory()).readTree(RULES.toFile()), rules);
        List<String> panels = new ArrayList<>();
        exprs(new ObjectMapper().readTree(DASHBOARD.toFile()), panels);
        assertThat(rules).hasSizeGreaterThan(5);
        assertThat(panels).hasSizeGreaterThan(5);
        Set<String> used = metricsIn(rules);
        used.addAll(metricsIn(panels));
        assertThat(used).contains("fabric_switches_expected", "fabric_switches_dead", "fabric_links_down",
                "fabric_ports_quarantined", "fabric_tables_pending", "fabric_tables_failing", "fabric_opensm_lost");

        PgftSpec spec = DaemonSimulationTest.SPEC;
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(DaemonSimulationTest.config(state, spec), StartOptions.of(List.of()).engine(new HopTestEngine()))) {
            String scrape = daemon.metrics().scrape();
            Set<String> exported = new TreeSet<>();
            for (String line : scrape.split("\n")) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    exported.add(line.split("[{ ]", 2)[0]);
                }
            }
            assertThat(exported).as("metrics the shipped rules and dashboard query").containsAll(used);
            assertThat(scrape).contains("fabric_switches_expected " + (double) spec.totalSwitchCount());
        }
    }

    @Test
    void theRulesPassPromtool() throws Exception {
        String out = promtool("check", "rules", RULES.toString());
        assertThat(out).contains("SUCCESS");
        assertThat(Files.readString(RULES)).contains("groups:");
    }

    /**
     * Prometheus' unit tests of the rules ({@code conf/fabric-manager-alerts-test.yml}, beside them): every alert of the
     * rules file has a case where it fires and one where it stays quiet, and promtool passes them all.
     */
    @Test
    void everyAlertFiresOnItsSeriesAndOnlyThen() throws Exception {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        Set<String> alerts = new TreeSet<>();
        yaml.readTree(RULES.toFile()).path("groups").forEach(g -> g.path("rules").forEach(r -> alerts.add(r.path("alert").asText())));
        Set<String> fires = new TreeSet<>();
        Set<String> quiet = new TreeSet<>();
        JsonNode tests = yaml.readTree(RULE_TESTS.toFile());
        assertThat(tests.path("rule_files").get(0).asText()).isEqualTo(RULES.getFileName().toString());
        tests.path("tests").forEach(t -> t.path("alert_rule_test").forEach(a -> (a.path("exp_alerts").isEmpty() ? quiet : fires)
                .add(a.path("alertname").asText())));
        assertThat(alerts).hasSizeGreaterThan(15);
        assertThat(fires).as("alerts tested firing").isEqualTo(alerts);
        assertThat(quiet).as("alerts tested quiet").isEqualTo(alerts);
        String out = promtool("test", "rules", RULE_TESTS.toString());
        assertThat(out).contains("SUCCESS").doesNotContain("FAILED");
    }

    /** What promtool printed; fails unless it exits 0; skips where promtool is not installed. */
    private static String promtool(String... args) throws Exception {
        File promtool = null;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File f = new File(dir, "promtool");
            if (f.canExecute()) {
                promtool = f;
            }
        }
        RealParts.require(promtool != null, "promtool is not installed (Debian: prometheus)");
        List<String> command = new ArrayList<>(List.of(promtool.getPath()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}
