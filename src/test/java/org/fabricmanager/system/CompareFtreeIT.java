package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fabricmanager.opensm.OpenSmTools;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compare} gives OpenSM's ftree and updn the fabric's top level as root GUIDs ({@code -a}) and its end
 * nodes as compute nodes ({@code -u}), so that ftree routes a degraded fat tree itself instead of refusing it
 * ({@code ERR AB09}) and falling back to minhop; and a relative {@code --work} directory works. Runs the
 * packaged jar in a process; skipped (an assumption) when OpenSM, ibsim or infiniband-diags are missing.
 */
class CompareFtreeIT {
    /** Bounds, not measures: a stuck tool must not hang the build. */
    private static final long LIMIT_SECONDS = 300;

    @TempDir
    Path dir;

    @BeforeAll
    static void tools() {
        RealParts.require(OpenSmTools.find().isPresent(), "OpenSM tools missing: " + OpenSmTools.missing() + " ("
                + OpenSmTools.INSTALL_HINT + ")");
    }

    @Test
    void ftreeRoutesADegradedFatTreeWithTheGuidFilesAndNoFallback() throws Exception {
        FabricProcesses.CliResult run = FabricProcesses.cli(dir, "-Xmx512m", LIMIT_SECONDS,
                "compare", "--pgft", "PGFT(3;4,4,4;1,4,4;1,1,1)", "--degrade-links", "0.05", "--seed", "1",
                "--opensm-engines", "ftree,updn", "--engines", "dmodc", "--patterns", "shift", "--threads", "1",
                "--work", "work");
        String text = run.all();
        assertThat(run.exit()).as(text).isZero();
        assertThat(text).as(text).contains("compare: ftree and updn get -a ").contains("(the top level: 16 switches)")
                .contains("(the end nodes: 64 ports)").doesNotContain("fell back to").doesNotContain("exit code");
        assertThat(text).containsPattern("opensm ftree +[0-9.]+ +0 ").containsPattern("opensm updn +[0-9.]+ +0 ");
        Path log = dir.resolve("work/opensm-ftree/opensm.log");
        String ftreeLog = Files.readString(log, StandardCharsets.ISO_8859_1);
        assertThat(ftreeLog).as("ftree's log").doesNotContain("AB09").contains("ftree tables configured on all switches");
        assertThat(Files.readAllLines(dir.resolve("work/root-guids.txt"))).hasSize(16);
    }

    /** Without {@code --work} the files go to a temporary directory, removed at the end (850 MB at 4,096 nodes). */
    @Test
    void withoutWorkTheTemporaryFilesAreRemoved() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        FabricProcesses.CliResult run = FabricProcesses.cli(dir, "-Xmx512m -Djava.io.tmpdir=" + tmp, LIMIT_SECONDS,
                "compare", "--pgft", "PGFT(2;4,4;1,4;1,1)", "--opensm-engines", "minhop", "--engines", "dmodc",
                "--patterns", "shift", "--threads", "1");
        String text = run.all();
        assertThat(run.exit()).as(text).isZero();
        assertThat(text).as(text).containsPattern("opensm minhop +[0-9.]+ +0 ").contains("files in " + tmp)
                .contains("(temporary: removed at the end, --work DIR keeps them)");
        try (var left = Files.list(tmp)) {
            assertThat(left.map(Path::getFileName).map(Path::toString)).as("left in java.io.tmpdir")
                    .noneMatch(f -> f.startsWith("fm-compare-"));
        }
    }
}
