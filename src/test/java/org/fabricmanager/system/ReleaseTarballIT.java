package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fabricmanager.release.BuildInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release as an operator installs it: {@code fabric-manager-VERSION.tar.gz}, unpacked with
 * {@code tar} into an empty directory, run by its own {@code bin/fabric-manager} in an environment
 * with a Java runtime and the few shell tools the launcher uses, but no Maven and nothing of the
 * source tree (not on the PATH, not as the working directory).
 */
class ReleaseTarballIT {
    /** Whatever the machine, a run must not wait forever; the figure is a bound, not a measure. */
    private static final long RUN_LIMIT_SECONDS = 300;

    @TempDir
    static Path dir;
    static Path home;
    static OperatorShell shell;

    @BeforeAll
    static void unpack() throws Exception {
        Path dist = Path.of(System.getProperty("fm.dist", "fm.dist-not-set"));
        assertThat(dist).as("the tarball mvn package builds").isRegularFile();
        shell = new OperatorShell(dir);
        Path target = Files.createDirectory(dir.resolve("opt"));
        OperatorShell.Result tar = shell.run(List.of(OperatorShell.which("tar").toString(), "-xzf", dist.toString(), "-C",
                target.toString()), System.getenv(), RUN_LIMIT_SECONDS);
        assertThat(tar.code()).as(tar.output()).isZero();
        try (Stream<Path> top = Files.list(target)) {
            assertThat(top.map(p -> p.getFileName().toString())).as("one top directory, named by the version")
                    .containsExactly("fabric-manager-" + System.getProperty("fm.version"));
        }
        home = target.resolve("fabric-manager-" + System.getProperty("fm.version"));
    }

    @Test
    void holdsTheLauncherTheJarTheConfigurationTheDocsAndTheLicence() throws Exception {
        try (Stream<Path> top = Files.list(home)) {
            assertThat(top.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("bin", "lib", "conf", "docs", "LICENSE", "README.md");
        }
        assertThat(Files.getPosixFilePermissions(home.resolve("bin/fabric-manager")))
                .contains(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_EXECUTE);
        assertThat(home.resolve("lib/fabric-manager.jar")).isRegularFile();
        // OpenSM's plug-in, when this build had gcc and OpenSM's headers (docs/opensm.md)
        boolean plugin = Files.isRegularFile(Path.of(System.getProperty("fm.jar")).toAbsolutePath()
                .resolveSibling("opensm-plugin/libfabricmanager.so"));
        assertThat(Files.isRegularFile(home.resolve("lib/opensm/libfabricmanager.so"))).as("lib/opensm/libfabricmanager.so")
                .isEqualTo(plugin);
        for (String f : List.of("fabric-manager.yaml", "logback.xml", "fabric-manager.service", "fabric-manager.sysusers")) {
            assertThat(home.resolve("conf").resolve(f)).isRegularFile();
        }
        assertThat(home.resolve("docs/operations.md")).isRegularFile();
        assertThat(home.resolve("docs/formats.md")).isRegularFile();
        assertThat(home.resolve("docs/img/load-balance.svg")).isRegularFile();
        assertThat(home.resolve("docs/img/plot-performance.py")).as("the generator stays in the source tree").doesNotExist();
        assertThat(Files.readString(home.resolve("LICENSE"))).contains("Apache License").contains("Version 2.0, January 2004");
        assertThat(Files.readString(home.resolve("conf/fabric-manager.yaml")))
                .as("the shipped configuration is the daemon's own default file")
                .contains("southbound:").contains("startupGraceMs:");
    }

    @Test
    void theMeasurementScriptsShipWithWhatTheyRun() throws Exception {
        ShippedScripts.assertCompleteIn(home.resolve("docs/tools"), shell);
        assertThat(home.resolve("docs/tools/netlab-stream.py")).as("what netlab-cut.sh streams with").isRegularFile();
    }

    @Test
    void versionRunsFromTheUnpackedTreeWithoutMaven() throws Exception {
        assertThat(shell.tools().resolve("mvn")).doesNotExist();
        OperatorShell.Result r = shell.run(List.of(home.resolve("bin/fabric-manager").toString(), "--version"), RUN_LIMIT_SECONDS);
        assertThat(r.code()).as(r.output()).isZero();
        List<String> lines = r.output().lines().toList();
        assertThat(lines.get(0)).isEqualTo(BuildInfo.current().describe())
                .startsWith("fabric-manager " + System.getProperty("fm.version") + " (commit ");
        assertThat(lines.get(1)).startsWith("Java ");

        // as installed for admins: a symbolic link on the PATH still finds ../lib of the real script
        Files.createSymbolicLink(shell.tools().resolve("fabric-manager"), home.resolve("bin/fabric-manager"));
        OperatorShell.Result viaLink = shell.run(List.of("bash", "-c", "fabric-manager --version"), RUN_LIMIT_SECONDS);
        assertThat(viaLink.code()).as(viaLink.output()).isZero();
        assertThat(viaLink.output().lines().findFirst()).hasValue(BuildInfo.current().describe());
    }

    @Test
    void demoUntilConvergedRunsFromTheUnpackedTree() throws Exception {
        OperatorShell.Result r = shell.run(List.of(home.resolve("bin/fabric-manager").toString(), "demo", "--until-converged",
                "--http-port", "0"), RUN_LIMIT_SECONDS);
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output()).contains("demo: PGFT(3;8,8,8;1,8,8;1,1,1): 192 switches, 512 nodes")
                .contains("switches connected: 192/192")
                .contains("routing v1 computed in")
                .containsPattern("tables converged: v1 on 192/192 switches")
                .containsPattern("REST: http://127\\.0\\.0\\.1:\\d+/api/v1/status");
    }

    @Test
    void withoutAJavaRuntimeTheLauncherSaysWhatIsMissing() throws Exception {
        OperatorShell.Result r = shell.run(List.of(home.resolve("bin/fabric-manager").toString(), "--version"),
                Map.of("PATH", shell.tools().toString(), "HOME", dir.toString()), RUN_LIMIT_SECONDS);
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.output()).isEqualTo("fabric-manager: no Java runtime found: install Java 17 or later (a JRE is enough),"
                + " or set JAVA_HOME\n");
    }
}
