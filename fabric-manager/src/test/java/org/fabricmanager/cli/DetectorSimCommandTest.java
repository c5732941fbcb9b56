package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DetectorSimCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return new Main(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void jsonIsOneObjectWithExactlyTheIssuesFieldsInOrder() throws Exception {
        int code = run("detector-sim", "--members", "64", "--fail", "5", "--consecutive", "--overlay", "bmg", "--json");
        assertThat(code).as(stderr()).isEqualTo(ExitCodes.OK);
        String[] lines = stdout().strip().split("\n");
        assertThat(lines).hasSize(1);
        JsonNode json = new ObjectMapper().readTree(lines[0]);
        List<String> fields = new ArrayList<>();
        json.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactly("members", "failed", "overlay", "detectionMs", "stabilisationMs", "boundMs",
                "agreed", "falseSuspicions", "messagesPerBroadcast");
        assertThat(json.get("members").asInt()).isEqualTo(64);
        assertThat(json.get("failed").asInt()).isEqualTo(5);
        assertThat(json.get("overlay").asText()).isEqualTo("bmg");
        assertThat(json.get("agreed").asBoolean()).isTrue();
        assertThat(json.get("falseSuspicions").asLong()).isZero();
        assertThat(json.get("detectionMs").asDouble()).isBetween(80.0, 101.0);
        // Five consecutive members: the observer walks back 2δ per member, (2·5 - 1)δ in all.
        assertThat(json.get("stabilisationMs").asDouble()).isBetween(890.0, json.get("boundMs").asDouble());
        assertThat(json.get("boundMs").asDouble()).isEqualTo(3000 + 0.5 + 15 * 8 * 0.1 * 6, org.assertj.core.data.Offset.offset(1e-3));
        assertThat(json.get("messagesPerBroadcast").asDouble()).isPositive();
    }

    @Test
    void reportShowsTimesInDeltasNextToThePapersBound() {
        int code = run("detector-sim", "--members", "128", "--fail", "3", "--overlay", "hypercube", "--eta", "5",
                "--delta", "50", "--tau-us", "20", "--seed", "9");
        assertThat(code).as(stderr()).isEqualTo(ExitCodes.OK);
        assertThat(stdout()).contains("128 members, 3 random failure(s), hypercube overlay, η=5 ms, δ=50 ms, τ=20 µs, seed 9")
                .containsPattern("stabilisation +[0-9.]+ ms = [0-9.]+ δ")
                .containsPattern("paper's bound T\\(f\\) +[0-9.]+ ms = [0-9.]+ δ")
                .contains("agreed               yes")
                .containsPattern("messages per member +[0-9.]+ until stabilisation")
                .containsPattern("[0-9.]+ messages per broadcast");
    }

    @Test
    void aSeedGivesTheSameResultEveryTime() {
        run("detector-sim", "--members", "100", "--fail", "4", "--overlay", "bmg", "--seed", "5", "--json");
        String first = stdout();
        out.reset();
        run("detector-sim", "--members", "100", "--fail", "4", "--overlay", "bmg", "--seed", "5", "--json");
        assertThat(stdout()).isEqualTo(first);
    }

    @Test
    void badOptionsAreOneLineUsageErrors() {
        String[][] cases = {
                {"--fail", "1", "--overlay", "bmg"},
                {"--members", "64", "--overlay", "bmg"},
                {"--members", "64", "--fail", "1"},
                {"--members", "64", "--fail", "1", "--overlay", "torus"},
                {"--members", "64", "--fail", "64", "--overlay", "bmg"},
                {"--members", "1", "--fail", "1", "--overlay", "bmg"},
                {"--members", "64", "--fail", "1", "--overlay", "bmg", "--eta", "60", "--delta", "100"},
                {"--members", "64", "--fail", "1", "--overlay", "bmg", "--tau-us", "100000", "--delta", "100"},
                {"--members", "lots", "--fail", "1", "--overlay", "bmg"},
                {"--members", "64", "--fail", "1", "--overlay", "bmg", "--colour", "red"},
        };
        String[] expected = {"--members", "--fail", "--overlay", "torus", "--fail must be in [1, 63]", "--members must be in",
                "at least twice --eta", "must be below --delta", "must be an integer", "unknown option --colour"};
        for (int i = 0; i < cases.length; i++) {
            out.reset();
            err.reset();
            String[] args = new String[cases[i].length + 1];
            args[0] = "detector-sim";
            System.arraycopy(cases[i], 0, args, 1, cases[i].length);
            assertThat(run(args)).as("case %d", i).isEqualTo(ExitCodes.BAD_INPUT);
            assertThat(stderr().strip()).as("case %d", i).startsWith("detector-sim:").contains(expected[i]).doesNotContain("\n");
            assertThat(stdout()).as("case %d", i).isEmpty();
        }
    }

    @Test
    void isListedAmongTheCommands() {
        run("--help");
        assertThat(stdout()).contains("detector-sim");
    }
}
