package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.daemon.opensm.OpenSmFallbackFiles;
import org.fabricmanager.release.BuildInfo;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Debian package {@code mvn package} builds, read with Debian's own {@code dpkg-deb}: its control
 * fields, conffiles and maintainer scripts, and its files unpacked into a scratch root, where the
 * launcher the unit starts runs {@code --version} with only a Java runtime, and again with the unit's own
 * JVM options (a misspelt or retired {@code -XX} flag stops the JVM before the daemon starts); the unit's runtime
 * directory and group for OpenSM's socket and fallback files, and the files shipped beside the configuration.
 * (Installing it for real would change this machine: users, /opt, systemd.)
 */
class DebianPackageIT {
    private static final long RUN_LIMIT_SECONDS = 120;

    @TempDir
    static Path dir;
    static Path deb;
    static Path root;
    static OperatorShell shell;

    @BeforeAll
    static void unpack() throws Exception {
        RealParts.require(OperatorShell.has("dpkg-deb"), "dpkg-deb is not installed: not a Debian-based machine");
        String version = System.getProperty("fm.version").replace("-SNAPSHOT", "~SNAPSHOT");
        deb = Path.of(System.getProperty("fm.dist")).resolveSibling("fabric-manager_" + version + "_all.deb");
        assertThat(deb).as("the package mvn package builds").isRegularFile();
        shell = new OperatorShell(dir);
        root = Files.createDirectory(dir.resolve("root"));
        assertThat(dpkg("-x", deb.toString(), root.toString()).code()).isZero();
        assertThat(dpkg("-e", deb.toString(), dir.resolve("control").toString()).code()).isZero();
    }

    private static OperatorShell.Result dpkg(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(OperatorShell.which("dpkg-deb").toString()));
        command.addAll(List.of(args));
        OperatorShell.Result r = shell.run(command, System.getenv(), RUN_LIMIT_SECONDS);
        assertThat(r.code()).as(String.join(" ", command) + ": " + r.output()).isZero();
        return r;
    }

    @Test
    void controlFieldsNameThePackageItsVersionAndAJavaRuntime() throws Exception {
        assertThat(dpkg("--field", deb.toString(), "Package").output().strip()).isEqualTo("fabric-manager");
        assertThat(dpkg("--field", deb.toString(), "Version").output().strip())
                .isEqualTo(System.getProperty("fm.version").replace("-SNAPSHOT", "~SNAPSHOT"));
        assertThat(dpkg("--field", deb.toString(), "Architecture").output().strip()).isEqualTo("all");
        assertThat(dpkg("--field", deb.toString(), "Depends").output()).contains("java17-runtime-headless");
    }

    @Test
    void configurationFilesAreConffilesAndTheScriptsAreValidShell() throws Exception {
        assertThat(Files.readAllLines(dir.resolve("control/conffiles")))
                .containsExactlyInAnyOrder("/etc/fabric-manager/fabric-manager.yaml", "/etc/fabric-manager/logback.xml",
                        "/etc/fabric-manager/fabric-manager-alerts.yml", "/etc/fabric-manager/fabric-manager-dashboard.json",
                        "/etc/fabric-manager/opensm.conf.example");
        for (String script : List.of("postinst", "prerm", "postrm")) {
            Path p = dir.resolve("control").resolve(script);
            assertThat(Files.getPosixFilePermissions(p)).as(script).contains(PosixFilePermission.OWNER_EXECUTE);
            OperatorShell.Result syntax = shell.run(List.of(OperatorShell.which("sh").toString(), "-n", p.toString()),
                    System.getenv(), RUN_LIMIT_SECONDS);
            assertThat(syntax.code()).as(script + ": " + syntax.output()).isZero();
        }
    }

    @Test
    void installsTheTreeTheUnitStarts() throws Exception {
        String unit = Files.readString(root.resolve("lib/systemd/system/fabric-manager.service"));
        String execStart = unit.lines().filter(l -> l.startsWith("ExecStart=")).findFirst().orElseThrow();
        Path launcher = root.resolve(execStart.substring("ExecStart=".length()).split(" ")[0].substring(1));
        assertThat(launcher).as("the unit's ExecStart is in the package").isEqualTo(root.resolve("opt/fabric-manager/bin/fabric-manager"));
        assertThat(Files.getPosixFilePermissions(launcher)).contains(PosixFilePermission.OTHERS_EXECUTE);
        assertThat(root.resolve("opt/fabric-manager/lib/fabric-manager.jar")).isRegularFile();
        boolean plugin = Files.isRegularFile(Path.of(System.getProperty("fm.jar")).toAbsolutePath()
                .resolveSibling("opensm-plugin/libfabricmanager.so"));
        assertThat(Files.isRegularFile(root.resolve("opt/fabric-manager/lib/opensm/libfabricmanager.so")))
                .as("OpenSM's plug-in, when this build made it").isEqualTo(plugin);
        assertThat(root.resolve("opt/fabric-manager/docs/formats.md")).isRegularFile();
        assertThat(root.resolve("usr/lib/sysusers.d/fabric-manager.conf")).isRegularFile();
        assertThat(root.resolve("usr/share/man/man1/fabric-manager.1.gz")).as("the release's manual page").isNotEmptyFile();
        assertThat(root.resolve("usr/share/bash-completion/completions/fabric-manager")).as("its completion script")
                .content().contains("complete ");
        assertThat(dpkg("--contents", deb.toString()).output()).as("the configuration holds the admin token")
                .containsPattern("(?m)^-rw-r----- root/root .* \\./etc/fabric-manager/fabric-manager\\.yaml$");
        assertThat(Files.readString(dir.resolve("control/postinst")))
                .contains("chgrp fabric-manager \"$conf\"").contains("chmod 0640 \"$conf\"");
        assertThat(Files.readSymbolicLink(root.resolve("usr/bin/fabric-manager")))
                .isEqualTo(Path.of("/opt/fabric-manager/bin/fabric-manager"));
        assertThat(Files.readSymbolicLink(root.resolve("opt/fabric-manager/conf"))).isEqualTo(Path.of("/etc/fabric-manager"));

        OperatorShell.Result r = shell.run(List.of(launcher.toString(), "--version"), RUN_LIMIT_SECONDS);
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output().lines().findFirst()).hasValue(BuildInfo.current().describe());
    }

    @Test
    void theMeasurementScriptsShipWithWhatTheyRun() throws Exception {
        ShippedScripts.assertCompleteIn(root.resolve("opt/fabric-manager/docs/tools"), shell);
        assertThat(root.resolve("opt/fabric-manager/docs/img/plot-performance.py")).as("the generator stays in the source")
                .doesNotExist();
    }

    @Test
    void shipsTheMonitoringFilesAndOpenSmsLinesBesideTheConfiguration() throws Exception {
        Path home = Path.of(System.getProperty("fm.home"));
        for (String f : List.of("fabric-manager-alerts.yml", "fabric-manager-dashboard.json", "opensm.conf.example")) {
            assertThat(root.resolve("etc/fabric-manager").resolve(f)).as(f + ", as in the tarball's conf/")
                    .hasSameBinaryContentAs(home.resolve("conf").resolve(f));
        }
    }

    /**
     * The unit gives the daemon the directory of the documented socket, {@code /run/fabric-manager}, kept while the
     * daemon is stopped (OpenSM's fallback reads the GUID files in it then), and the group its sysusers entry and
     * postinst create; opensm.conf's socket and GUID files are in that directory.
     */
    @Test
    void theUnitHostsOpenSmsSocketAndFallbackFilesInItsRuntimeDirectory() throws Exception {
        String unit = Files.readString(root.resolve("lib/systemd/system/fabric-manager.service"));
        assertThat(unit).containsPattern("(?m)^RuntimeDirectory=fabric-manager$")
                .containsPattern("(?m)^RuntimeDirectoryMode=0711$").containsPattern("(?m)^RuntimeDirectoryPreserve=yes$")
                .containsPattern("(?m)^SupplementaryGroups=fabric-manager-opensm$");
        assertThat(Files.readString(root.resolve("usr/lib/sysusers.d/fabric-manager.conf")))
                .as("the unit does not start without its supplementary group").containsPattern("(?m)^g fabric-manager-opensm ");
        assertThat(Files.readString(dir.resolve("control/postinst")))
                .as("without systemd-sysusers").contains("groupadd --system fabric-manager-opensm");

        Map<String, String> conf = new HashMap<>();
        for (String line : Files.readAllLines(root.resolve("etc/fabric-manager/opensm.conf.example"))) {
            if (!line.isBlank() && !line.startsWith("#")) {
                conf.put(line.substring(0, line.indexOf(' ')), line.substring(line.indexOf(' ') + 1));
            }
        }
        assertThat(conf.get("event_plugin_options")).contains("fm.socket=/run/fabric-manager/opensm.sock ");
        assertThat(conf).containsEntry("routing_engine", "fabric-manager,ftree,minhop")
                .containsEntry("root_guid_file", "/run/fabric-manager/" + OpenSmFallbackFiles.ROOTS)
                .containsEntry("cn_guid_file", "/run/fabric-manager/" + OpenSmFallbackFiles.COMPUTE_NODES)
                .containsEntry("force_log_flush", "TRUE");
    }

    @Test
    void theUnitsJvmOptionsStartThisRuntime() throws Exception {
        String unit = Files.readString(root.resolve("lib/systemd/system/fabric-manager.service"));
        String prefix = "Environment=\"FM_JAVA_OPTS=";
        String line = unit.lines().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow();
        String options = line.substring(prefix.length(), line.length() - 1);
        assertThat(options).as("heap touched at start, on huge pages where the kernel has them")
                .contains("-XX:+AlwaysPreTouch", "-XX:+UseTransparentHugePages");
        Map<String, String> env = new HashMap<>(shell.environment());
        env.put("FM_JAVA_OPTS", options);
        OperatorShell.Result r = shell.run(List.of(root.resolve("opt/fabric-manager/bin/fabric-manager").toString(),
                "--version"), env, RUN_LIMIT_SECONDS);
        // with transparent huge pages off the JVM prints a warning first: the version need not be the first line
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output().lines()).as(r.output()).contains(BuildInfo.current().describe());
    }
}
