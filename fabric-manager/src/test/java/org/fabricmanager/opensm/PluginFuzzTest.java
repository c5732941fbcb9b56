package org.fabricmanager.opensm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.Test;

/**
 * A short run of the plug-in's fuzz targets ({@code src/main/c/opensm-plugin/fuzz.sh}; docs/opensm.md, "Fuzzing the
 * plug-in"): every parser the plug-in runs on what the daemon sends, under libFuzzer with AddressSanitizer and
 * UndefinedBehaviorSanitizer, for 10 s each, after the exchange's socket was run once against a daemon that answers
 * before it read the subnet. No finding, and each target reports the executions it ran. Skipped, with
 * fuzz.sh's reason, where clang, libFuzzer or OpenSM's headers are missing; a finding's input stays in
 * {@code target/plugin-fuzz/findings}.
 */
class PluginFuzzTest {
    private static final Path SCRIPT = Path.of("src", "main", "c", "opensm-plugin", "fuzz.sh");
    private static final List<String> TARGETS = List.of("answer", "channel", "name");
    private static final int SECONDS = 10;
    /** fuzz.sh's exit code when a tool is missing (automake's convention for a skipped test). */
    private static final int SKIPPED = 77;
    private static final Pattern RAN = Pattern.compile("fuzz (\\w+): (\\d+) executions in \\d+ s \\((\\d+) exec/s\\)");

    @Test
    void theParsersOfTheDaemonsFramesRunCleanUnderTheSanitizers() throws Exception {
        Path work = Path.of("target", "plugin-fuzz");
        Path output = Files.createDirectories(work).resolve("fuzz.out");
        Process p = new ProcessBuilder("bash", SCRIPT.toString(), Integer.toString(SECONDS), work.toString())
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        // building the targets and running them one after the other, with room for a loaded machine
        assertThat(p.waitFor(SECONDS * TARGETS.size() + 240L, TimeUnit.SECONDS)).as("fuzz.sh ends").isTrue();
        String out = Files.readString(output, StandardCharsets.UTF_8);
        RealParts.require(p.exitValue() != SKIPPED, out.strip());
        assertThat(p.exitValue()).as("fuzz.sh found nothing:\n" + out).isZero();
        assertThat(out).as("the exchange against a daemon answering before it read the subnet")
                .contains("early answer: ok");
        for (String target : TARGETS) {
            Matcher m = RAN.matcher(out);
            long runs = 0;
            while (m.find()) {
                if (m.group(1).equals(target)) {
                    runs = Long.parseLong(m.group(2));
                }
            }
            // far more than its seeds: libFuzzer ran inputs of its own
            assertThat(runs).as("executions of the target " + target + " in:\n" + out).isGreaterThan(1000);
        }
    }
}
