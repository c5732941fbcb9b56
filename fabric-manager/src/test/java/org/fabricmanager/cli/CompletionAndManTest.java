package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code completion} completes what the commands accept, in a real bash; {@code man} renders in groff. */
class CompletionAndManTest {
    @TempDir
    Path dir;

    @Test
    void completionOffersEveryCommandAndTheirOptionsInBash() throws Exception {
        RealParts.require(Files.isExecutable(Path.of("/bin/bash")), "no /bin/bash");
        CliRun run = CliRun.of("completion");
        assertThat(run.exitCode()).isZero();
        Path script = dir.resolve("fabric-manager.bash");
        Files.writeString(script, run.out());
        Files.createFile(dir.resolve("fabric.json"));

        assertThat(complete(script, "fabric-manager", "ro")).containsExactly("route");
        List<String> all = complete(script, "fabric-manager", "");
        for (Command c : Commands.all()) {
            assertThat(all).as("first words").contains(c.name().split(" ")[0]);
        }
        assertThat(complete(script, "fabric-manager", "pki", "")).containsExactly("init", "issue", "show");
        assertThat(complete(script, "fabric-manager", "pki", "show", "--")).containsExactlyInAnyOrder(
                "--dir", "--guid", "--help", "--verbose");
        for (Command c : Commands.all()) {
            List<String> words = new ArrayList<>(Arrays.asList(("fabric-manager " + c.name()).split(" ")));
            words.add("--");
            List<String> offered = complete(script, words.toArray(String[]::new));
            c.valueOptions().forEach(o -> assertThat(offered).as(c.name()).contains("--" + o));
            c.flagOptions().forEach(o -> assertThat(offered).as(c.name()).contains("--" + o));
        }
        // after an option that takes a value: file names
        assertThat(complete(script, "fabric-manager", "route", "--topology", dir + "/fabric."))
                .containsExactly(dir + "/fabric.json");
    }

    @Test
    void manualNamesEveryCommandAndRendersWithoutWarnings() throws Exception {
        CliRun run = CliRun.of("man");
        assertThat(run.exitCode()).isZero();
        String page = run.out();
        assertThat(page).startsWith(".TH FABRIC-MANAGER 1");
        for (Command c : Commands.all()) {
            assertThat(page).contains(".SS " + ManCommand.escape(c.name()) + "\n");
        }
        assertThat(page.lines().filter(l -> l.startsWith(".") || l.startsWith("'"))
                .map(l -> l.split(" ")[0])).as("only man macros start a line")
                .allMatch(m -> List.of(".TH", ".SH", ".SS", ".PP", ".nf", ".fi", ".TP", ".B", ".I", ".BR", ".br").contains(m));
        RealParts.require(Files.isExecutable(Path.of("/usr/bin/groff")),
                "no groff to render the page (Debian: groff-base)");
        Path file = dir.resolve("fabric-manager.1");
        Files.writeString(file, page);
        Process groff = new ProcessBuilder("/usr/bin/groff", "-man", "-Tutf8", "-ww", file.toString())
                .redirectError(ProcessBuilder.Redirect.PIPE).start();
        String rendered = new String(groff.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String warnings = new String(groff.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(groff.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(warnings).as("groff's warnings").isEmpty();
        assertThat(rendered.replaceAll(".\b", "")).contains("fabric-manager route --src NODE --dst NODE");
    }

    @Test
    void escapeKeepsLinesLiteral() {
        assertThat(ManCommand.escape(".hidden")).isEqualTo("\\&.hidden");
        assertThat(ManCommand.escape("'quoted")).isEqualTo("\\&'quoted");
        assertThat(ManCommand.escape("a\\b --x")).isEqualTo("a\\eb \\-\\-x");
        assertThat(ManCommand.escape("≤ 2 s")).as("non-ASCII as groff's Unicode escapes").isEqualTo("\\[u2264] 2 s");
    }

    /** What the completion function offers for the command line {@code words} (the last is being typed). */
    private static List<String> complete(Path script, String... words) throws IOException, InterruptedException {
        StringBuilder line = new StringBuilder("source '").append(script).append("'; COMP_WORDS=(");
        for (String w : words) {
            line.append("'").append(w).append("' ");
        }
        line.append("); COMP_CWORD=").append(words.length - 1).append("; _fabric_manager; printf '%s\\n' \"${COMPREPLY[@]}\"");
        Process bash = new ProcessBuilder("/bin/bash", "-c", line.toString()).redirectErrorStream(true).start();
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(bash.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(bash.exitValue()).as(out).isZero();
        return out.lines().filter(l -> !l.isEmpty()).sorted().toList();
    }
}
