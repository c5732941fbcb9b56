package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.fabricmanager.release.BuildInfo;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RPM {@code mvn package} builds where rpmbuild exists ({@code src/rpm}), read with {@code rpm} itself: its name,
 * version and the Java runtime it requires by RHEL's name, its files (those of the Debian package, with RHEL's unit
 * directory and the plug-in on OpenSM's library path), its configuration marked {@code %config(noreplace)}, its
 * scriptlets; then installed into a scratch root ({@code rpm --root}, without scriptlets: they would create users
 * on this machine), where the launcher runs with only a Java runtime and an edited configuration survives removal.
 */
class RpmPackageIT {
    private static final long RUN_LIMIT_SECONDS = 120;
    static final List<String> CONFIGURATION = List.of("/etc/fabric-manager/fabric-manager.yaml",
            "/etc/fabric-manager/logback.xml", "/etc/fabric-manager/fabric-manager-alerts.yml",
            "/etc/fabric-manager/fabric-manager-dashboard.json", "/etc/fabric-manager/opensm.conf.example");

    @TempDir
    static Path dir;
    static Path rpm;
    static OperatorShell shell;
    static boolean plugin;

    @BeforeAll
    static void find() throws Exception {
        RealParts.require(OperatorShell.has("rpm") && OperatorShell.has("rpmbuild"),
                "rpm and rpmbuild are not installed (Debian: apt-get install rpm): the build made no RPM");
        String version = System.getProperty("fm.version").replace("-SNAPSHOT", "~SNAPSHOT");
        rpm = Path.of(System.getProperty("fm.dist")).resolveSibling("fabric-manager-" + version + "-1.noarch.rpm");
        assertThat(rpm).as("the package mvn package builds").isRegularFile();
        shell = new OperatorShell(dir);
        plugin = Files.isRegularFile(Path.of(System.getProperty("fm.jar")).toAbsolutePath()
                .resolveSibling("opensm-plugin/libfabricmanager.so"));
    }

    private static String rpm(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(OperatorShell.which("rpm").toString()));
        command.addAll(List.of(args));
        OperatorShell.Result r = shell.run(command, System.getenv(), RUN_LIMIT_SECONDS);
        assertThat(r.code()).as(String.join(" ", command) + ": " + r.output()).isZero();
        return r.output();
    }

    @Test
    void headerNamesThePackageItsVersionAndRhelsJavaRuntime() throws Exception {
        assertThat(rpm("-qp", "--qf", "%{NAME} %{VERSION} %{RELEASE} %{ARCH}", rpm.toString()).strip())
                .isEqualTo("fabric-manager " + System.getProperty("fm.version").replace("-SNAPSHOT", "~SNAPSHOT")
                        + " 1 noarch");
        assertThat(rpm("-qp", "--requires", rpm.toString()).lines())
                .contains("(jre-17-headless or jre-21-headless)", "bash")
                .noneMatch(l -> l.startsWith("libc.so"));
    }

    @Test
    void holdsTheDebianPackagesFilesWithTheConfigurationKeptOnUpgrade() throws Exception {
        List<String> files = rpm("-qlp", rpm.toString()).lines().toList();
        assertThat(files).contains("/opt/fabric-manager/bin/fabric-manager", "/opt/fabric-manager/lib/fabric-manager.jar",
                "/opt/fabric-manager/conf", "/opt/fabric-manager/docs/operations.md", "/opt/fabric-manager/docs/tools",
                "/opt/fabric-manager/LICENSE", "/opt/fabric-manager/README.md", "/usr/bin/fabric-manager",
                "/usr/lib/systemd/system/fabric-manager.service", "/usr/lib/sysusers.d/fabric-manager.conf",
                "/usr/share/man/man1/fabric-manager.1.gz", "/usr/share/bash-completion/completions/fabric-manager")
                .containsAll(CONFIGURATION)
                .doesNotContain("/opt/fabric-manager/docs/img/plot-performance.py");
        assertThat(files.contains("/opt/fabric-manager/lib/opensm/libfabricmanager.so"))
                .as("OpenSM's plug-in, when this build made it").isEqualTo(plugin);
        assertThat(files.contains("/usr/lib64/libfabricmanager.so")).as("on OpenSM's library path").isEqualTo(plugin);
        assertThat(rpm("-qpc", rpm.toString()).lines()).containsExactlyInAnyOrderElementsOf(CONFIGURATION);
        // FILEFLAGS: c = %config, n = noreplace (an edited file stays, the new one lands beside it as .rpmnew)
        Map<String, String> flags = new HashMap<>();
        rpm("-qp", "--qf", "[%{FILENAMES} %{FILEFLAGS:fflags}\\n]", rpm.toString()).lines()
                .map(l -> l.split(" ", 2)).forEach(p -> flags.put(p[0], p.length > 1 ? p[1] : ""));
        for (String f : CONFIGURATION) {
            assertThat(flags.get(f)).as(f).contains("c").contains("n");
        }
        assertThat(rpm("-qp", "--qf", "[%{FILENAMES} %{FILEMODES:perms} %{FILEGROUPNAME}\\n]", rpm.toString()))
                .as("the configuration holds the admin token")
                .contains("/etc/fabric-manager/fabric-manager.yaml -rw-r----- fabric-manager");
    }

    /** The scriptlets create the user and both groups before the files land, reload systemd, stop on removal. */
    @Test
    void scriptletsCreateTheUsersAndTellSystemd() throws Exception {
        Map<String, String> scripts = new HashMap<>();
        for (String tag : List.of("PREIN", "POSTIN", "PREUN", "POSTUN")) {
            String body = rpm("-qp", "--qf", "%{" + tag + "}", rpm.toString());
            assertThat(body).as(tag).isNotBlank().doesNotContain("(none)");
            Path file = dir.resolve(tag.toLowerCase() + ".sh");
            Files.writeString(file, body);
            OperatorShell.Result syntax = shell.run(List.of(OperatorShell.which("sh").toString(), "-n", file.toString()),
                    System.getenv(), RUN_LIMIT_SECONDS);
            assertThat(syntax.code()).as(tag + ": " + syntax.output()).isZero();
            scripts.put(tag, body);
        }
        assertThat(rpm("-qp", "--scripts", rpm.toString())).contains("preinstall scriptlet", "postinstall scriptlet",
                "preuninstall scriptlet", "postuninstall scriptlet");
        assertThat(scripts.get("PREIN")).contains("groupadd --system fabric-manager-opensm")
                .contains("useradd --system --gid fabric-manager --home-dir /var/lib/fabric-manager");
        assertThat(scripts.get("POSTIN")).contains("systemctl daemon-reload").contains("systemctl restart fabric-manager");
        assertThat(scripts.get("PREUN")).contains("systemctl stop fabric-manager");
        assertThat(scripts.get("POSTUN")).contains("systemctl daemon-reload");
    }

    /**
     * Installed into a scratch root: the unit's launcher starts the release with only a Java runtime, the unit keeps its
     * runtime directory and group, the manual page and completion are this release's, and removal keeps an edited
     * configuration as {@code .rpmsave}.
     */
    @Test
    void installsIntoAScratchRootAndKeepsAnEditedConfigurationOnRemoval() throws Exception {
        RealParts.require("root".equals(System.getProperty("user.name")),
                "installing an RPM into a scratch root sets file owners: needs root");
        Path root = Files.createDirectory(dir.resolve("root"));
        // --nodeps: the scratch root has no Java package; --noscripts: they would add users to this machine
        rpm("--root", root.toString(), "-i", "--nodeps", "--noscripts", "--nosignature", rpm.toString());
        assertThat(rpm("--root", root.toString(), "-q", "fabric-manager").strip()).startsWith("fabric-manager-");

        String unit = Files.readString(root.resolve("usr/lib/systemd/system/fabric-manager.service"));
        assertThat(unit).containsPattern("(?m)^RuntimeDirectory=fabric-manager$")
                .containsPattern("(?m)^SupplementaryGroups=fabric-manager-opensm$");
        assertThat(Files.readString(root.resolve("usr/lib/sysusers.d/fabric-manager.conf")))
                .containsPattern("(?m)^g fabric-manager-opensm ");
        String execStart = unit.lines().filter(l -> l.startsWith("ExecStart=")).findFirst().orElseThrow();
        Path launcher = root.resolve(execStart.substring("ExecStart=".length()).split(" ")[0].substring(1));
        assertThat(launcher).isEqualTo(root.resolve("opt/fabric-manager/bin/fabric-manager"));
        assertThat(Files.getPosixFilePermissions(launcher)).contains(PosixFilePermission.OTHERS_EXECUTE);
        assertThat(Files.readSymbolicLink(root.resolve("usr/bin/fabric-manager")))
                .isEqualTo(Path.of("/opt/fabric-manager/bin/fabric-manager"));
        assertThat(Files.readSymbolicLink(root.resolve("opt/fabric-manager/conf"))).isEqualTo(Path.of("/etc/fabric-manager"));
        Path yaml = root.resolve("etc/fabric-manager/fabric-manager.yaml");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(yaml))).isEqualTo("rw-r-----");
        Path home = Path.of(System.getProperty("fm.home"));
        for (String f : List.of("fabric-manager-alerts.yml", "fabric-manager-dashboard.json", "opensm.conf.example")) {
            assertThat(root.resolve("etc/fabric-manager").resolve(f)).hasSameBinaryContentAs(home.resolve("conf").resolve(f));
        }
        if (plugin) {
            assertThat(Files.readSymbolicLink(root.resolve("usr/lib64/libfabricmanager.so")))
                    .isEqualTo(Path.of("/opt/fabric-manager/lib/opensm/libfabricmanager.so"));
            assertThat(root.resolve("opt/fabric-manager/lib/opensm/libfabricmanager.so")).isRegularFile();
        }
        try (InputStream man = new GZIPInputStream(Files.newInputStream(root.resolve("usr/share/man/man1/fabric-manager.1.gz")))) {
            assertThat(new String(man.readAllBytes(), StandardCharsets.UTF_8)).startsWith(".TH FABRIC-MANAGER 1")
                    .contains(".SS route");
        }
        Path completion = root.resolve("usr/share/bash-completion/completions/fabric-manager");
        assertThat(Files.readString(completion)).contains("complete ").contains("route");
        OperatorShell.Result syntax = shell.run(List.of(OperatorShell.which("bash").toString(), "-n", completion.toString()),
                System.getenv(), RUN_LIMIT_SECONDS);
        assertThat(syntax.code()).as(syntax.output()).isZero();

        OperatorShell.Result r = shell.run(List.of(launcher.toString(), "--version"), RUN_LIMIT_SECONDS);
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output().lines().findFirst()).hasValue(BuildInfo.current().describe());

        Files.writeString(yaml, Files.readString(yaml) + "\n# edited by the operator\n");
        rpm("--root", root.toString(), "-e", "--noscripts", "fabric-manager");
        assertThat(launcher).doesNotExist();
        assertThat(root.resolve("etc/fabric-manager/fabric-manager.yaml.rpmsave")).as("the edited configuration, kept")
                .content().endsWith("# edited by the operator\n");
        assertThat(root.resolve("etc/fabric-manager/logback.xml")).as("an unedited one goes").doesNotExist();
    }
}
