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
    void rejectsUnknownEnginesAndBadRepeat() {
        CliRun engine = CliRun.of("bench", "--pgft", SPEC, "--engines", "dmodc,nope");
        assertThat(engine.exitCode()).isEqualTo(2);
        assertThat(engine.err()).startsWith("bench: unknown routing engine 'nope'").hasLineCount(1);

        CliRun repeat = CliRun.of("bench", "--pgft", SPEC, "--repeat", "0");
        assertThat(repeat.exitCode()).isEqualTo(2);
        assertThat(repeat.err()).isEqualTo("bench: --repeat must be in [1, 100000], got 0" + System.lineSeparator());
    }
}
