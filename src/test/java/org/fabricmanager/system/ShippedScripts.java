package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The scripts a release ships in {@code docs/tools} (the measurements docs/performance.md runs), checked in an unpacked
 * release: each is executable, valid bash, and every file it runs from its own directory ({@code "$here/NAME"}) is
 * shipped beside it: {@code netlab-cut.sh} once needed a {@code netlab-stream.py} that no release had.
 */
final class ShippedScripts {
    /** A script's reference to a file in its own directory. */
    private static final Pattern BESIDE = Pattern.compile("\\$here/([A-Za-z0-9._-]+)");

    private ShippedScripts() {
    }

    /** Checks every script of {@code tools} (a release's docs/tools); returns the scripts checked. */
    static List<Path> assertCompleteIn(Path tools, OperatorShell shell) throws Exception {
        List<Path> scripts;
        try (Stream<Path> files = Files.list(tools)) {
            scripts = files.filter(f -> f.getFileName().toString().endsWith(".sh")).sorted().toList();
        }
        assertThat(scripts).as("scripts in %s", tools).extracting(p -> p.getFileName().toString())
                .contains("netlab-cut.sh");
        for (Path script : scripts) {
            assertThat(Files.getPosixFilePermissions(script)).as("%s executable", script)
                    .contains(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OTHERS_EXECUTE);
            OperatorShell.Result syntax = shell.run(List.of(OperatorShell.which("bash").toString(), "-n",
                    script.toString()), System.getenv(), 60);
            assertThat(syntax.code()).as("bash -n %s: %s", script, syntax.output()).isZero();
            for (String needed : beside(script)) {
                assertThat(tools.resolve(needed)).as("%s runs %s, which must ship beside it", script.getFileName(),
                        needed).isRegularFile();
            }
        }
        assertThat(beside(tools.resolve("netlab-cut.sh"))).as("what netlab-cut.sh runs").contains("netlab-stream.py");
        return scripts;
    }

    /** The files {@code script} runs from its own directory. */
    static List<String> beside(Path script) throws IOException {
        Matcher m = BESIDE.matcher(Files.readString(script));
        return m.results().map(r -> r.group(1)).distinct().toList();
    }
}
