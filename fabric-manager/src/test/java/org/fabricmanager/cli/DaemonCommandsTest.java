package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.List;
import org.fabricmanager.daemon.config.ConfigLoader;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.PemFiles;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DaemonCommandsTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return new Main(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void printDefaultConfigPrintsAFileThatLoadsAsTheDefaults() throws Exception {
        assertThat(run("run", "--print-default-config")).isZero();
        Path file = dir.resolve("default.yaml");
        Files.writeString(file, out());
        assertThat(ConfigLoader.load(file)).isEqualTo(DaemonConfig.defaults());
        assertThat(out()).contains("# ").contains("southbound:").contains("expectedPgft");
    }

    @Test
    void badConfigurationIsOneLineAndExitTwo() throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "routing:\n  engnie: dmodc\n");
        assertThat(run("run", "--config", file.toString())).isEqualTo(2);
        assertThat(err().trim()).startsWith("run: " + file + ":2: unknown option 'routing.engnie'").doesNotContain("\n");
    }

    @Test
    void unknownEngineIsABadConfiguration() throws Exception {
        Path file = dir.resolve("engine.yaml");
        Files.writeString(file, "routing:\n  engine: nope\nstate:\n  directory: " + dir.resolve("s")
                + "\nsecurity:\n  insecure: true\n");
        assertThat(run("run", "--config", file.toString(), "--southbound-port", "0", "--http-port", "0")).isEqualTo(2);
        assertThat(err()).contains("routing.engine").contains("nope");
    }

    @Test
    void unusableStateDirectoryIsABadConfiguration() throws Exception {
        Path file = dir.resolve("not-a-dir");
        Files.writeString(file, "x");
        Path config = dir.resolve("insecure.yaml");
        Files.writeString(config, "security:\n  insecure: true\n");
        assertThat(run("run", "--config", config.toString(), "--state-dir", file.resolve("sub").toString(),
                "--southbound-port", "0", "--http-port", "0")).isEqualTo(2);
        assertThat(err()).contains("state directory").contains("cannot create it");
    }

    @Test
    void runRefusesToStartWithoutTlsUnlessInsecureIsSet() throws Exception {
        assertThat(run("run", "--state-dir", dir.resolve("s").toString(), "--southbound-port", "0", "--http-port", "0"))
                .isEqualTo(2);
        assertThat(err()).contains("no TLS files").contains("security.pkiDirectory").contains("security.insecure");
        Path file = dir.resolve("half.yaml");
        Files.writeString(file, "security:\n  certificate: /x.crt\n");
        assertThat(run("run", "--config", file.toString())).isEqualTo(2);
        assertThat(err()).contains("security.privateKey is needed");
    }

    @Test
    void runRefusesAWorldReadableDaemonKey() throws Exception {
        Path pki = dir.resolve("pki");
        assertThat(run("pki", "init", "--dir", pki.toString())).isZero();
        java.nio.file.Files.setPosixFilePermissions(pki.resolve("daemon.key"),
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        Path file = dir.resolve("tls.yaml");
        Files.writeString(file, "security:\n  pkiDirectory: " + pki + "\nstate:\n  directory: " + dir.resolve("s") + "\n");
        assertThat(run("run", "--config", file.toString(), "--southbound-port", "0", "--http-port", "0")).isEqualTo(2);
        assertThat(err()).contains(pki.resolve("daemon.key").toString()).contains("rw-r--r--")
                .contains("chmod 600");
    }

    @Test
    void reissuingTheDaemonCertificateKeepsItsNamesAndOutWritesAnotherManagersDirectory() throws Exception {
        Path pki = dir.resolve("pki");
        assertThat(run("pki", "init", "--dir", pki.toString(), "--daemon-dns", "mgmt1", "--daemon-ip", "10.0.0.1")).isZero();
        assertThat(run("pki", "issue", "--dir", pki.toString(), "--daemon")).isZero();
        assertThat(out()).contains("re-issued for mgmt1, 10.0.0.1");
        assertThat(run("pki", "show", "--dir", pki.toString())).isZero();
        assertThat(out()).containsPattern("(?m)^ +names .*DNS:mgmt1.*IP:10\\.0\\.0\\.1");
        assertThat(sans(pki.resolve("daemon.crt"))).contains("mgmt1", "10.0.0.1");

        Path mgmt2 = dir.resolve("pki-mgmt2");
        assertThat(run("pki", "issue", "--dir", pki.toString(), "--daemon", "--daemon-dns", "mgmt2", "--out",
                mgmt2.toString())).isZero();
        assertThat(sans(mgmt2.resolve("daemon.crt"))).contains("mgmt2").doesNotContain("mgmt1");
        assertThat(mgmt2.resolve("ca.crt")).hasSameBinaryContentAs(pki.resolve("ca.crt"));
        assertThat(mgmt2.resolve("ca.key")).doesNotExist();
        assertThat(java.nio.file.Files.getPosixFilePermissions(mgmt2.resolve("daemon.key")))
                .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                        java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
        assertThat(sans(pki.resolve("daemon.crt"))).as("the CA's own directory untouched").contains("mgmt1");
        assertThat(run("pki", "issue", "--dir", pki.toString(), "--guid", "0x1", "--out", mgmt2.toString())).isEqualTo(2);
        assertThat(err()).contains("go with --daemon");
    }

    @Test
    void runWithoutASouthboundNeedsOpenSmTakesNoSouthboundPortAndNeedsTlsOnlyForAGroup() throws Exception {
        Path alone = dir.resolve("alone.yaml");
        Files.writeString(alone, "southbound:\n  enabled: false\n");
        assertThat(run("run", "--config", alone.toString())).isEqualTo(2);
        assertThat(err()).contains("run: " + alone + ":2: option southbound.enabled is false and opensm.socket is not "
                + "set").contains("set opensm.socket").doesNotContain("\tat ");
        Path openSm = dir.resolve("opensm.yaml");
        Files.writeString(openSm, "southbound:\n  enabled: false\nopensm:\n  socket: " + dir.resolve("o.sock") + "\n");
        err.reset();
        assertThat(run("run", "--config", openSm.toString(), "--southbound-port", "7000")).isEqualTo(2);
        assertThat(err()).contains("--southbound-port with southbound.enabled: false");
        Path group = dir.resolve("group.yaml");
        Files.writeString(group, Files.readString(openSm) + "ha:\n  enabled: true\n  nodeId: n1\n  peers: "
                + "[\"n1=127.0.0.1:7690\"]\n");
        err.reset();
        assertThat(run("run", "--config", group.toString())).isEqualTo(2);
        assertThat(err()).contains("no TLS files for the Raft port").contains("security.insecure");
    }

    @Test
    void pkiShowReportsADaemonCertificateAgentsRefuse() throws Exception {
        Path pki = dir.resolve("pki");
        assertThat(run("pki", "init", "--dir", pki.toString())).isZero();
        CertificateAuthority ca = new PkiDirectory(pki).loadCa(Clock.systemUTC());
        // as a hand-made certificate may be: naming the daemon, without extended key usage
        PemFiles.writeCertificates(pki.resolve("daemon.crt"), List.of(TestCertificates.daemon(ca).certificate()));
        assertThat(run("pki", "show", "--dir", pki.toString())).isEqualTo(ExitCodes.MISMATCH);
        assertThat(out()).containsPattern("(?m)^daemon .*PROBLEM: it has no extended key usage .*serverAuth");
    }

    private static java.util.List<String> sans(Path certificate) throws Exception {
        return org.fabricmanager.pki.PemFiles.readCertificate(certificate).getSubjectAlternativeNames().stream()
                .map(n -> String.valueOf(n.get(1))).toList();
    }

    @Test
    void aConfigurationFileIsReadOnlyUpToOneMebibyte() throws Exception {
        assertThat(run("run", "--config", "/dev/zero")).isEqualTo(2);
        assertThat(err()).contains("/dev/zero: larger than 1048576 bytes");
    }

    @Test
    void badPortAndAddressOptionsAreUsageErrors() {
        assertThat(run("run", "--southbound-port", "70000")).isEqualTo(2);
        assertThat(err()).contains("--southbound-port must be in [0, 65535]");
        assertThat(run("simulate", "--pgft", "PGFT(2;4,4;1,4;1,1)", "--connect", "localhost")).isEqualTo(2);
        assertThat(err()).contains("--connect must be HOST:PORT");
        assertThat(run("demo", "--pgft", "PGFT(2;4)")).isEqualTo(2);
    }

    @Test
    void aSplitSimulationNamesSwitchesOfTheFabric() {
        String spec = "PGFT(2;4,4;1,4;1,1)";
        assertThat(run("simulate", "--pgft", spec, "--connect", "127.0.0.1:1", "--only", "0x1000000100000000",
                "--except", "0x1000000100000001")).isEqualTo(2);
        assertThat(err()).contains("--only and --except exclude each other");
        assertThat(run("simulate", "--pgft", spec, "--connect", "127.0.0.1:1", "--only", "0x2000000000000000")).isEqualTo(2);
        assertThat(err()).contains("--only: 0x2000000000000000 is not a switch of the fabric");
        assertThat(run("simulate", "--pgft", spec, "--connect", "127.0.0.1:1", "--except", "zz")).isEqualTo(2);
        assertThat(err()).contains("--except: bad GUID 'zz'");
        StringBuilder all = new StringBuilder();
        for (org.fabricmanager.topology.FabricSwitch s : org.fabricmanager.topology.PgftGenerator.generate(
                org.fabricmanager.topology.PgftSpec.parse(spec)).switches()) {
            all.append(all.length() == 0 ? "" : ",").append(org.fabricmanager.topology.Guids.format(s.guid()));
        }
        assertThat(run("simulate", "--pgft", spec, "--connect", "127.0.0.1:1", "--except", all.toString())).isEqualTo(2);
        assertThat(err()).contains("--except leaves no switch to simulate");
    }

    @Test
    void demoRunsTheDaemonOnASimulatedFabricUntilConverged() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(org.fabricmanager.routing.engines.RoutingEngines.names().contains("dmodc"),
                "the dmodc engine is not registered in this build");
        Path state = dir.resolve("demo-state");
        int code = run("demo", "--pgft", "PGFT(2;4,4;1,4;1,1)", "--http-port", "0", "--until-converged",
                "--state-dir", state.toString());
        assertThat(code).as(err()).isZero();
        // the actions (whatif, drain, rebalance) need the admin token: the demo makes one only its owner may read
        Path token = state.resolve(DemoToken.FILE);
        assertThat(out()).contains("admin token: " + token + " (for whatif, drain, rebalance: --token-file)");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(token))).isEqualTo("rw-------");
        assertThat(Files.readString(token)).matches("[0-9a-f]{48}\n");
        assertThat(out()).contains("demo: PGFT(2;4,4;1,4;1,1): 8 switches, 16 nodes, 32 links")
                .contains("switches connected: 8/8")
                .contains("fabric discovered: 8 switches, 16 nodes, 16 switch-to-switch links; INTACT PGFT(2;4,4;1,4;1,1)")
                .containsPattern("routing v1 computed in [0-9.]+ ms \\(dmodc-home, valid[;)]")
                .contains("tables converged: v1 on 8/8 switches")
                .containsPattern("REST: http://127.0.0.1:[0-9]+/api/v1/status")
                .containsPattern("status page: http://127.0.0.1:[0-9]+/");
    }
}
