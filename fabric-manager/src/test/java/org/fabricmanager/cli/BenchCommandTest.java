package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchCommandTest {
    private static final String SPEC = "PGFT(3;4,4,4;1,4,4;1,1,1)";

    @Test
    void printsOneJsonObjectWithTheDocumentedFields() throws Exception {
        CliRun run = CliRun.of("bench", "--pgft", SPEC, "--repeat", "3", "--threads", "2", "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode root = new ObjectMapper().readTree(run.out());
        assertThat(root.get("cores").asInt()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(root.get("jvm").asText()).contains(Runtime.version().toString());
        assertThat(root.get("fabric").get("switches").asInt()).isEqualTo(48);
        assertThat(root.get("fabric").get("nodes").asInt()).isEqualTo(64);
        JsonNode engines = root.get("engines");
        assertThat(engines).hasSize(2);
        assertThat(engines.get(0).get("engine").asText()).isEqualTo("dmodc");
        assertThat(engines.get(1).get("engine").asText()).isEqualTo("dmodk");
        for (JsonNode engine : engines) {
            assertThat(engine.get("coldMs").asDouble()).isPositive();
            List<String> phases = new ArrayList<>();
            engine.get("phases").fieldNames().forEachRemaining(phases::add);
            assertThat(phases.get(0)).isEqualTo("total");
            for (String phase : phases) {
                JsonNode spread = engine.get("phases").get(phase);
                double median = spread.get("medianMs").asDouble();
                assertThat(spread.get("minMs").asDouble()).as(phase).isLessThanOrEqualTo(median);
                assertThat(spread.get("maxMs").asDouble()).as(phase).isGreaterThanOrEqualTo(median);
            }
        }
        List<String> dmodcPhases = new ArrayList<>();
        engines.get(0).get("phases").fieldNames().forEachRemaining(dmodcPhases::add);
        assertThat(dmodcPhases).containsExactly("total", "ranking", "groups", "cost+divider", "routes", "validity");
    }

    @Test
    void printsATableWithMachineFactsByDefault() {
        CliRun run = CliRun.of("bench", "--pgft", SPEC, "--repeat", "2", "--engines", "dmodc");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("fabric PGFT(3;4,4,4;1,4,4;1,1,1): 48 switches, 64 nodes")
                .contains(Runtime.getRuntime().availableProcessors() + " cores")
                .contains("2 warm runs per engine")
                .containsPattern("dmodc +total +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+")
                .containsPattern("dmodc +cost\\+divider +[0-9.]+ +[0-9.]+ +[0-9.]+");
    }

    @Test
    void skipsDmodkOnADegradedFabricUnlessAskedFor() {
        CliRun defaults = CliRun.of("bench", "--pgft", SPEC, "--degrade-links", "0.05", "--repeat", "1", "--json");
        assertThat(defaults.exitCode()).as(defaults.err()).isZero();
        assertThat(defaults.err()).startsWith("bench: skipping dmodk: dmodk needs an intact canonical PGFT");
        assertThat(defaults.out()).contains("\"engine\":\"dmodc\"").doesNotContain("\"engine\":\"dmodk\"");

        CliRun explicit = CliRun.of("bench", "--pgft", SPEC, "--degrade-links", "0.05", "--engines", "dmodk");
        assertThat(explicit.exitCode()).isEqualTo(2);
        assertThat(explicit.err()).startsWith("bench: dmodk needs an intact canonical PGFT: fabric is degraded (")
                .hasLineCount(1);
    }

    @Test
    void routesSeveralDegradationsSideBySide() {
        CliRun run = CliRun.of("bench", "--pgft", SPEC, "--degrade-links", "0,0.05,0.1", "--repeat", "2");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).contains("bench: skipping dmodk with 0.05 of links removed")
                .contains("bench: skipping dmodk with 0.1 of links removed");
        assertThat(run.out()).contains("fabric PGFT(3;4,4,4;1,4,4;1,1,1): 48 switches, 64 nodes; links removed: 0 (192 links), 0.05 (")
                .contains("2 warm runs per engine and fabric, interleaved")
                .containsPattern("dmodc +0 +total +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+")
                .containsPattern("dmodc +0.05 +routes +[0-9.]+ +[0-9.]+ +[0-9.]+")
                .containsPattern("dmodc +0.1 +cost\\+divider +[0-9.]+ +[0-9.]+ +[0-9.]+")
                .containsPattern("dmodk +0 +total +[0-9.]+")
                .containsPattern("dmodc 0.05 / 0 \\(median\\): total [0-9.]+, routes [0-9.]+")
                .containsPattern("dmodc 0.1 / 0 \\(median\\): total [0-9.]+, routes [0-9.]+")
                .doesNotContainPattern("dmodk +0.05");
    }

    @Test
    void printsSideBySideLevelsAsJson() throws Exception {
        CliRun run = CliRun.of("bench", "--pgft", SPEC, "--degrade-links", "0,0.1", "--engines", "dmodc", "--repeat",
                "2", "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode levels = new ObjectMapper().readTree(run.out()).get("levels");
        assertThat(levels).hasSize(2);
        assertThat(levels.get(0).get("degradeLinks").asDouble()).isZero();
        assertThat(levels.get(1).get("degradeLinks").asDouble()).isEqualTo(0.1);
        assertThat(levels.get(1).get("links").asInt()).isLessThan(levels.get(0).get("links").asInt());
        for (JsonNode level : levels) {
            assertThat(level.get("engines")).hasSize(1);
            assertThat(level.get("engines").get(0).get("phases").get("routes").get("medianMs").asDouble()).isPositive();
        }
    }

    @Test
    void rejectsADegradationThatIsNotAFraction() {
        CliRun run = CliRun.of("bench", "--pgft", SPEC, "--degrade-links", "0,1.5");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("bench: --degrade-links item '1.5' is not a fraction in [0, 1]"
                + System.lineSeparator());
    }

    @Test
    void timesSingleFaultsReroutedAgainstRoutedFromScratch() {
        CliRun run = CliRun.of("bench", "--pgft", SPEC, "--reroute", "leaf-link,top-link,top-switch", "--faults", "2",
                "--repeat", "2");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("fabric PGFT(3;4,4,4;1,4,4;1,1,1): 48 switches, 64 nodes, 192 links; up to 2 faults")
                .contains("2 rounds over the faults");
        for (String kind : new String[] {"leaf-link", "top-link", "top-switch"}) {
            assertThat(run.out()).containsPattern("dmodc +" + kind + " +from scratch +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+")
                    .containsPattern("dmodc +" + kind + " +re-routed +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ / [0-9]+ / [0-9]+")
                    .containsPattern("dmodc " + kind + ": re-routed / from scratch \\(median\\) [0-9.]+; re-route phases "
                            + "\\(median ms\\): ranking [0-9.]+, groups [0-9.]+, cost\\+divider [0-9.]+, changes [0-9.]+, "
                            + "routes [0-9.]+, validity [0-9.]+");
        }
    }

    @Test
    void printsRerouteTimingsAsJson() throws Exception {
        CliRun run = CliRun.of("bench", "--pgft", SPEC, "--reroute", "top-switch", "--faults", "1", "--repeat", "1",
                "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode reroutes = new ObjectMapper().readTree(run.out()).get("reroutes");
        assertThat(reroutes).hasSize(1);
        JsonNode r = reroutes.get(0);
        assertThat(r.get("engine").asText()).isEqualTo("dmodc");
        assertThat(r.get("fault").asText()).isEqualTo("top-switch");
        assertThat(r.get("fromScratch").get("phases").get("total").get("medianMs").asDouble()).isPositive();
        assertThat(r.get("rerouted").get("phases").get("changes").get("medianMs").asDouble()).isNotNegative();
        // A top switch of PGFT(3;4,4,4;1,4,4;1,1,1) touches 4 rows below; the others are reused.
        assertThat(r.get("rows").get("reused").asInt()).isGreaterThan(30);
    }

    @Test
    void rejectsUnknownFaultKindsAndFaultsWithoutReroute() {
        CliRun kind = CliRun.of("bench", "--pgft", SPEC, "--reroute", "cable");
        assertThat(kind.exitCode()).isEqualTo(2);
        assertThat(kind.err()).isEqualTo("bench: unknown --reroute kind 'cable' (known: leaf-link, top-link, top-switch)"
                + System.lineSeparator());

        CliRun faults = CliRun.of("bench", "--pgft", SPEC, "--faults", "2");
        assertThat(faults.exitCode()).isEqualTo(2);
        assertThat(faults.err()).isEqualTo("bench: --faults goes with --reroute" + System.lineSeparator());
    }

    @Test
    void rejectsUnknownEnginesAndBadRepeat() {
        CliRun engine = CliRun.of("bench", "--pgft", SPEC, "--engines", "dmodc,nope");
        assertThat(engine.exitCode()).isEqualTo(2);
        assertThat(engine.err()).startsWith("bench: unknown routing engine 'nope'").hasLineCount(1);

        CliRun repeat = CliRun.of("bench", "--pgft", SPEC, "--repeat", "0");
        assertThat(repeat.exitCode()).isEqualTo(2);
        assertThat(repeat.err()).isEqualTo("bench: --repeat must be in [1, 100000], got 0" + System.lineSeparator());
    }
}
