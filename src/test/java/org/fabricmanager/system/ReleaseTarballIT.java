package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
    /** Whatever the machine, one of the runs must not wait forever; the figure is a bound, not a measure. */
    private static final long RUN_LIMIT_SECONDS = 300;

    @TempDir
    static Path dir;
    static Path home;
    static Path tools;

    @BeforeAll
    static void unpack() throws Exception {
        Path dist = Path.of(System.getProperty("fm.dist", "fm.dist-not-set"));
        assertThat(dist).as("the tarball mvn package builds").isRegularFile();
        Path target = Files.createDirectory(dir.resolve("opt"));
        Result tar = run(List.of("tar", "-xzf", dist.toString(), "-C", target.toString()), dir, System.getenv(), 60);
        assertThat(tar.code()).as(tar.output()).isZero();
        try (Stream<Path> top = Files.list(target)) {
            assertThat(top.map(p -> p.getFileName().toString())).as("one top directory, named by the version")
                    .containsExactly("fabric-manager-" + System.getProperty("fm.version"));
        }
        home = target.resolve("fabric-manager-" + System.getProperty("fm.version"));
        tools = Files.createDirectory(dir.resolve("tools"));
        // the launcher needs bash, dirname and readlink; nothing else of the machine's PATH
        for (String tool : List.of("bash", "dirname", "readlink", "env")) {
            Files.createSymbolicLink(tools.resolve(tool), which(tool));
        }
    }

    private static Path which(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(d, tool);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new AssertionError(tool + " is not on this machine's PATH");
    }

    /** An operator's environment: the JRE running this test as JAVA_HOME, a PATH without Maven or git. */
    private static Map<String, String> operatorEnvironment() throws IOException {
        Path userHome = Files.createDirectories(dir.resolve("home"));
        return Map.of("PATH", tools.toString(), "JAVA_HOME", System.getProperty("java.home"), "HOME", userHome.toString(),
                "FM_JAVA_OPTS", "-Xmx512m", "LANG", "C.UTF-8");
    }

    record Result(int code, String output) {
    }

    private static Result run(List<String> command, Path cwd, Map<String, String> env, long limitSeconds) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env);
        Path log = Files.createTempFile(dir, "run-", ".out");
        Process p = pb.redirectOutput(log.toFile()).start();
        if (!p.waitFor(limitSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError(String.join(" ", command) + " did not finish within " + limitSeconds + " s; output:\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
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
        for (String f : List.of("fabric-manager.yaml", "logback.xml", "fabric-manager.service", "fabric-manager.sysusers")) {
            assertThat(home.resolve("conf").resolve(f)).isRegularFile();
        }
        assertThat(home.resolve("docs/operations.md")).isRegularFile();
        assertThat(home.resolve("docs/formats.md")).isRegularFile();
        assertThat(Files.readString(home.resolve("LICENSE"))).contains("Apache License").contains("Version 2.0, January 2004");
        assertThat(Files.readString(home.resolve("conf/fabric-manager.yaml")))
                .as("the shipped configuration is the daemon's own default file")
                .contains("southbound:").contains("startupGraceMs:");
    }

    @Test
    void versionRunsFromTheUnpackedTreeWithoutMaven() throws Exception {
        Map<String, String> env = operatorEnvironment();
        assertThat(tools.resolve("mvn")).doesNotExist();
        Result r = run(List.of(home.resolve("bin/fabric-manager").toString(), "--version"), dir.resolve("home"), env, RUN_LIMIT_SECONDS);
        assertThat(r.code()).as(r.output()).isZero();
        List<String> lines = r.output().lines().toList();
        assertThat(lines.get(0)).isEqualTo(BuildInfo.current().describe())
                .startsWith("fabric-manager " + System.getProperty("fm.version") + " (commit ");
        assertThat(lines.get(1)).startsWith("Java ");

        // as installed for admins: a symbolic link on the PATH still finds ../lib of the real script
        Files.createSymbolicLink(tools.resolve("fabric-manager"), home.resolve("bin/fabric-manager"));
        Result viaLink = run(List.of("bash", "-c", "fabric-manager --version"), dir.resolve("home"), env, RUN_LIMIT_SECONDS);
        assertThat(viaLink.code()).as(viaLink.output()).isZero();
        assertThat(viaLink.output().lines().findFirst()).hasValue(BuildInfo.current().describe());
    }

    @Test
    void demoUntilConvergedRunsFromTheUnpackedTree() throws Exception {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/fabric-manager").toString(), "demo",
                "--until-converged", "--http-port", "0"));
        Result r = run(command, dir.resolve("home"), operatorEnvironment(), RUN_LIMIT_SECONDS);
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output()).contains("demo: PGFT(3;8,8,8;1,8,8;1,1,1): 192 switches, 512 nodes")
                .contains("switches connected: 192/192")
                .contains("routing v1 computed in")
                .containsPattern("tables converged: v1 on 192/192 switches")
                .containsPattern("REST: http://127\\.0\\.0\\.1:\\d+/api/v1/status");
    }

    @Test
    void withoutAJavaRuntimeTheLauncherSaysWhatIsMissing() throws Exception {
        Result r = run(List.of(home.resolve("bin/fabric-manager").toString(), "--version"), dir.resolve("home"),
                Map.of("PATH", tools.toString(), "HOME", dir.toString()), RUN_LIMIT_SECONDS);
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.output()).isEqualTo("fabric-manager: no Java runtime found: install Java 17 or later (a JRE is enough),"
                + " or set JAVA_HOME\n");
    }
}
