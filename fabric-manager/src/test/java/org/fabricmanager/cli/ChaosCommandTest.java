package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.daemon.chaos.PlantedDefects;
import org.junit.jupiter.api.Test;

/** {@code fabric-manager chaos}: a clean campaign exits 0; a violation exits 3 with a replay that fails again. */
class ChaosCommandTest {
    private static final String SMALL = "PGFT(2;4,4;1,4;1,1)";

    @Test
    void aCleanCampaignOnASmallFabricExitsZeroAndSaysWhatItRan() {
        CliRun run = CliRun.of("chaos", "--pgft", SMALL, "--seed", "11", "--steps", "30", "--length", "10");
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("chaos " + SMALL + ": 3 schedules", "events/s", "chaos: no violation")
                .doesNotContain("picked");
    }

    @Test
    void withoutASeedItPicksOneAndPrintsIt() {
        CliRun run = CliRun.of("chaos", "--pgft", SMALL, "--steps", "5", "--length", "5");
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).containsPattern("chaos: seed \\d+ \\(picked; --seed \\d+ runs the same schedules\\)");
    }

    @Test
    void badInputExitsTwo() {
        assertThat(CliRun.of("chaos", "--pgft", SMALL).exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(CliRun.of("chaos", "--schedule", "down:1").exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
        CliRun bad = CliRun.of("chaos", "--seed", "1", "--schedule", "down:1 sideways:2");
        assertThat(bad.exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(bad.err()).contains("sideways:2");
    }

    /** A switch that drops a block and acknowledges it: exit 3, the seed, a shrunk schedule, and a replay that fails. */
    @Test
    void aViolationExitsThreeWithASeedAndAReplayThatFailsAgain() throws Exception {
        Run found = run("--pgft", SMALL, "--seed", "21", "--steps", "20", "--length", "20");
        assertThat(found.code()).as(found.out()).isEqualTo(ExitCodes.MISMATCH);
        assertThat(found.out()).contains("chaos violation TABLES_DIFFER with seed 21 on " + SMALL, "shrunk to 0");
        Matcher replay = Pattern.compile("replay: fabric-manager chaos --pgft '([^']+)' --seed (\\d+) --schedule '([^']*)'")
                .matcher(found.out());
        assertThat(replay.find()).as(found.out()).isTrue();
        Run again = run("--pgft", replay.group(1), "--seed", replay.group(2), "--schedule", replay.group(3));
        assertThat(again.code()).as(again.out()).isEqualTo(ExitCodes.MISMATCH);
        assertThat(again.out()).contains("chaos violation TABLES_DIFFER with seed 21");
    }

    private record Run(int code, String out) {
    }

    private static Run run(String... args) throws Exception {
        ChaosCommand command = new ChaosCommand(PlantedDefects.SWITCH_SKIPS_A_BLOCK);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            int code = command.run(CliTree.arguments(command, List.of(args)), new Console(o, o));
            return new Run(code, out.toString(StandardCharsets.UTF_8));
        }
    }
}
