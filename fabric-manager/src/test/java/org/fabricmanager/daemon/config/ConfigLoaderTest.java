package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    @Test
    void printedDefaultsParseBackToTheDefaults() {
        assertThat(ConfigLoader.parse(DefaultConfig.yaml(), "default")).isEqualTo(DaemonConfig.defaults());
    }

    @Test
    void printedDefaultsNameEveryOptionOfEverySection() {
        String yaml = DefaultConfig.yaml();
        for (RecordComponent section : DaemonConfig.class.getRecordComponents()) {
            assertThat(yaml).contains("\n" + section.getName() + ":");
            for (RecordComponent option : section.getType().getRecordComponents()) {
                assertThat(yaml).as("%s.%s", section.getName(), option.getName())
                        .containsPattern("\n  " + option.getName() + ": [^#]*# \\S");
            }
        }
    }

    @Test
    void missingKeysTakeDefaultsAndGivenOnesWin() {
        DaemonConfig c = ConfigLoader.parse("""
                southbound:
                  port: 9000
                routing:
                  engine: dmodk
                fabric:
                  expectedPgft: "PGFT(2;4,4;1,4;1,1)"
                """, "test.yaml");
        assertThat(c.southbound().port()).isEqualTo(9000);
        assertThat(c.southbound().echoIntervalMs()).isEqualTo(DaemonConfig.defaults().southbound().echoIntervalMs());
        assertThat(c.routing().engine()).isEqualTo("dmodk");
        assertThat(c.fabric().expectedSpec().totalSwitchCount()).isEqualTo(8);
        assertThat(c.rest()).isEqualTo(DaemonConfig.defaults().rest());
    }

    @Test
    void emptyFileIsAllDefaults() {
        assertThat(ConfigLoader.parse("", "empty.yaml")).isEqualTo(DaemonConfig.defaults());
        assertThat(ConfigLoader.parse("# nothing\n", "empty.yaml")).isEqualTo(DaemonConfig.defaults());
    }

    @Test
    void unknownKeyIsRejectedWithItsPathLineAndTheKnownKeys() {
        assertThatThrownBy(() -> ConfigLoader.parse("rest:\n  port: 1\nsouthbound:\n  prot: 5\n", "fm.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("fm.yaml:4")
                .hasMessageContaining("unknown option 'southbound.prot'")
                .hasMessageContaining("port");
        assertThatThrownBy(() -> ConfigLoader.parse("routng:\n  engine: dmodc\n", "fm.yaml"))
                .hasMessageContaining("unknown option 'routng'")
                .hasMessageContaining("routing");
    }

    @Test
    void theTlsProviderIsAutoUnlessNamedAndAnUnknownOneNamesTheOption() {
        assertThat(DaemonConfig.defaults().security().tlsProvider()).isEqualTo(org.fabricmanager.pki.TlsProvider.AUTO);
        assertThat(ConfigLoader.parse("security:\n  insecure: true\n  tlsProvider: jdk\n", "fm.yaml").security()
                .tlsProvider()).isEqualTo(org.fabricmanager.pki.TlsProvider.JDK);
        assertThat(ConfigLoader.parse("security:\n  insecure: true\n  tlsProvider: OpenSSL\n", "fm.yaml").security()
                .tlsProvider()).isEqualTo(org.fabricmanager.pki.TlsProvider.OPENSSL);
        assertThatThrownBy(() -> ConfigLoader.parse("security:\n  tlsProvider: boringssl\n", "fm.yaml"))
                .hasMessageContaining("security.tlsProvider").hasMessageContaining("auto, openssl or jdk");
    }

    @Test
    void outOfRangeAndWrongTypesNameTheOption() {
        assertThatThrownBy(() -> ConfigLoader.parse("southbound:\n  port: 70000\n", "fm.yaml"))
                .hasMessageContaining("southbound.port must be in [0, 65535], got 70000");
        assertThatThrownBy(() -> ConfigLoader.parse("push:\n  retries: many\n", "fm.yaml"))
                .hasMessageContaining("push.retries")
                .hasMessageContaining("not an integer");
        assertThatThrownBy(() -> ConfigLoader.parse("push:\n  ackTimeoutMs: 1.5\n", "fm.yaml"))
                .hasMessageContaining("push.ackTimeoutMs");
        assertThatThrownBy(() -> ConfigLoader.parse("fabric:\n  expectedPgft: \"PGFT(2;4)\"\n", "fm.yaml"))
                .hasMessageContaining("fabric.expectedPgft");
        // the balance baseline routes offline only: no repair path, minutes at 65,536 nodes
        assertThatThrownBy(() -> ConfigLoader.parse("routing:\n  engine: sssp\n", "fm.yaml"))
                .hasMessageContaining("routing.engine: sssp is for route and quality only");
        assertThatThrownBy(() -> ConfigLoader.parse("southbound: 5\n", "fm.yaml"))
                .hasMessageContaining("fm.yaml:1");
        assertThatThrownBy(() -> ConfigLoader.parse("southbound:\n  echoIntervalMs: 5000\n  idleTimeoutMs: 4000\n", "fm.yaml"))
                .hasMessageContaining("idleTimeoutMs (4000) must be larger");
        assertThatThrownBy(() -> ConfigLoader.parse("faults:\n  detector:\n    deltaMs: 800\n    startupGraceMs: 1000\n",
                "fm.yaml")).hasMessageContaining("faults.detector.startupGraceMs (1000) must be at least twice "
                + "faults.detector.deltaMs (800)");
        // issue 15: vtftr runs in the daemon (its VC rules go on the wire), but only where it fits the expected shape
        assertThatThrownBy(() -> ConfigLoader.parse("fabric:\n  expectedPgft: \"PGFT(2;4,4;1,4;1,1)\"\nrouting:\n"
                + "  engine: vtftr\n", "fm.yaml"))
                .hasMessageContaining("routing.engine: vtftr routes 2-D fat trees (fabric.expectedHdft), but "
                        + "fabric.expectedPgft is PGFT(2;4,4;1,4;1,1): use dmodc-home for a PGFT");
        assertThatThrownBy(() -> ConfigLoader.parse("fabric:\n  expectedHdft: \"HDFT(4x4;2;1;1)\"\nrouting:\n"
                + "  engine: dmodc\n", "fm.yaml"))
                .hasMessageContaining("routing.engine: dmodc routes PGFTs and its tables can deadlock on the 2-D fat "
                        + "tree of fabric.expectedHdft (HDFT(4x4;2;1;1)): use vtftr");
        assertThatThrownBy(() -> ConfigLoader.parse("fabric:\n  expectedHdft: \"HDFT(4x4;2;1;1)\"\nrouting:\n"
                + "  engine: dmodc-plain\n", "fm.yaml"))
                .hasMessageContaining("routing.engine: dmodc-plain routes PGFTs and its tables can deadlock");
        assertThatThrownBy(() -> ConfigLoader.parse("fabric:\n  expectedHdft: \"HDFT(4x4;2;1;1)\"\n  expectedPgft: "
                + "\"PGFT(2;4,4;1,4;1,1)\"\n", "fm.yaml")).hasMessageContaining("give one expected shape, not both");
        assertThatThrownBy(() -> ConfigLoader.parse("fabric:\n  expectedHdft: \"HDFT(4x4)\"\n", "fm.yaml"))
                .hasMessageContaining("fabric.expectedHdft");
        DaemonConfig hdft = ConfigLoader.parse("fabric:\n  expectedHdft: \"HDFT(4x4;2;1;1)\"\nrouting:\n  engine: vtftr\n",
                "fm.yaml");
        assertThat(hdft.routing().engine()).isEqualTo("vtftr");
        assertThat(hdft.fabric().expectedHdft()).isEqualTo("HDFT(4x4;2;1;1)");
    }

    @Test
    void syntaxErrorsAndMissingFilesAreClear(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> ConfigLoader.parse("a: [\n", "bad.yaml")).hasMessageContaining("bad.yaml")
                .hasMessageContaining("not valid YAML");
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("nope.yaml"))).hasMessageContaining("no such configuration file");
        Path file = dir.resolve("ok.yaml");
        Files.writeString(file, "state:\n  directory: /tmp/x\n");
        assertThat(ConfigLoader.load(file).state().directory()).isEqualTo("/tmp/x");
    }
}
