package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.fabricmanager.daemon.config.ConfigLoader;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A standby's rehearsal starts and closes a real manager, but on a copy of the state and on ports the system
 * picks: the state directory stays byte for byte as it was (no lock, no file written), and the configured
 * ports, which the standby itself holds, are not needed.
 */
class ManagerRehearsalTest {
    @TempDir
    Path dir;

    @Test
    void rehearsingLeavesTheStateDirectoryAndTheConfiguredPortsAlone() throws Exception {
        Path state = dir.resolve("state");
        Files.createDirectories(state.resolve("ha"));
        Files.writeString(state.resolve("ha-leader"), "nodeId=n1\nterm=1\nsouthbound=127.0.0.1:1\nrest=http://127.0.0.1:2\n");
        Files.writeString(state.resolve("ha").resolve("raft-file"), "not state");
        Map<String, byte[]> before = contents(state);
        try (ServerSocket southbound = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             ServerSocket rest = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            DaemonConfig config = ConfigLoader.parse("""
                    southbound:
                      bind: "127.0.0.1"
                      port: %d
                    rest:
                      bind: "127.0.0.1"
                      port: %d
                    state:
                      directory: "%s"
                    security:
                      insecure: true
                    """.formatted(southbound.getLocalPort(), rest.getLocalPort(), state), "n1.yaml");

            assertThat(ManagerRehearsal.run(config)).as("rehearsal time").isNotNegative();
        }
        Map<String, byte[]> after = contents(state);
        assertThat(after).as("the state directory").containsOnlyKeys(before.keySet());
        before.forEach((name, bytes) -> assertThat(after.get(name)).as(name).isEqualTo(bytes));
    }

    @Test
    void withTlsTheRehearsalAlsoWarmsTheSouthboundsTlsCode() throws Exception {
        Path pki = dir.resolve("pki");
        initPki(pki);
        DaemonConfig config = ConfigLoader.parse("""
                southbound:
                  bind: "127.0.0.1"
                rest:
                  bind: "127.0.0.1"
                state:
                  directory: "%s"
                security:
                  pkiDirectory: "%s"
                """.formatted(dir.resolve("state"), pki), "n1.yaml");
        long withTls = ManagerRehearsal.run(config);
        assertThat(withTls).as("rehearsal with TLS warm-up (ms)").isNotNegative();
        org.fabricmanager.pki.TlsMaterial material = org.fabricmanager.daemon.config.SouthboundSecurity.material(config.security());
        assertThat(org.fabricmanager.pki.TlsWarmup.run(material, config.security().tlsProvider().engine(material), 1, 60_000)
                .handshakes()).as("the daemon certificate pki init makes serves both ends of the warm-up").isOne();
    }

    @Test
    void withAgentsTheRehearsalConvergesUnderAThrowAwayCa() throws Exception {
        Path pki = dir.resolve("pki");
        initPki(pki);
        DaemonConfig config = ConfigLoader.parse("""
                southbound:
                  bind: "127.0.0.1"
                rest:
                  bind: "127.0.0.1"
                fabric:
                  expectedPgft: "PGFT(2;4,4;1,4;1,1)"
                state:
                  directory: "%s"
                security:
                  pkiDirectory: "%s"
                faults:
                  detector:
                    enabled: true
                """.formatted(dir.resolve("state"), pki), "n1.yaml");
        java.security.cert.X509Certificate fabricCa = org.fabricmanager.pki.PemFiles.readCertificates(pki.resolve("ca.crt")).get(0);
        java.util.List<Long> identities = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger tablesHeld = new java.util.concurrent.atomic.AtomicInteger();
        RehearsalAgents agents = (spec, southbound, identity, provider) -> {
            org.fabricmanager.agent.AgentSettings base = org.fabricmanager.agent.AgentSettings.defaults(southbound)
                    .withTlsProvider(provider);
            org.fabricmanager.sim.FabricSimulator sim = new org.fabricmanager.sim.FabricSimulator(
                    org.fabricmanager.topology.PgftGenerator.generate(spec), guid -> {
                        org.fabricmanager.pki.TlsMaterial m = identity.apply(guid);
                        assertThat(m.trusted()).as("a throw-away CA, not the fabric's").doesNotContain(fabricCa);
                        identities.add(guid);
                        return base.withTls(m);
                    }, null, 1, null, 1L);
            sim.start();
            return () -> {
                tablesHeld.set((int) sim.agents().stream().filter(a -> a.table().version() > 0).count());
                sim.close();
            };
        };
        assertThat(AgentRehearsal.applies(config, agents)).isTrue();
        assertThat(AgentRehearsal.applies(config, null)).as("no agents given").isFalse();
        Files.createDirectories(dir.resolve("copy"));
        assertThat(AgentRehearsal.run(ManagerRehearsal.scratch(config, dir.resolve("copy")), dir.resolve("copy"), agents))
                .as("converged").isTrue();
        assertThat(identities).as("an identity per switch").hasSize(8).doesNotHaveDuplicates();
        assertThat(tablesHeld.get()).as("every agent got its table").isEqualTo(8);
        assertThat(dir.resolve("copy").resolve("rehearsal-pki").resolve("ca.key")).as("no CA key on disk").doesNotExist();
    }

    @Test
    void aFabricTooLargeForAgentsIsRehearsedWithout() {
        DaemonConfig config = ConfigLoader.parse("""
                fabric:
                  expectedPgft: "PGFT(3;32,32,64;1,32,32;1,1,1)"
                security:
                  insecure: true
                """, "n1.yaml");
        assertThat(AgentRehearsal.applies(config, (spec, southbound, identity, provider) -> () -> { })).isFalse();
    }

    @Test
    void theRehearsalRunsOnLoopbackOnPortsPickedByTheSystemOutsideAnyGroupWithoutOpenSm() {
        DaemonConfig config = ConfigLoader.parse("""
                southbound:
                  bind: "0.0.0.0"
                  port: 7654
                rest:
                  bind: "0.0.0.0"
                  port: 7680
                ha:
                  enabled: true
                  nodeId: n1
                  peers: ["n1=127.0.0.1:7690", "n2=127.0.0.1:7691", "n3=127.0.0.1:7692"]
                opensm:
                  socket: /run/fabric-manager/opensm.sock
                """, "n1.yaml");
        assertThat(config.opensm().enabled()).isTrue();
        DaemonConfig scratch = ManagerRehearsal.scratch(config, dir);
        assertThat(scratch.southbound().bind()).isEqualTo("127.0.0.1");
        assertThat(scratch.southbound().port()).isZero();
        assertThat(scratch.rest().bind()).isEqualTo("127.0.0.1");
        assertThat(scratch.rest().port()).isZero();
        assertThat(scratch.state().path()).isEqualTo(dir);
        assertThat(scratch.ha().enabled()).isFalse();
        assertThat(scratch.opensm().enabled()).as("a rehearsal must not take OpenSM's socket from the active manager")
                .isFalse();
    }

    /**
     * An OpenSM-only group (no southbound) rehearses a manager too: one that needs OpenSM's socket, given one in the
     * state's copy, never the active manager's; nothing of it stays, and agents are not rehearsed.
     */
    @Test
    void withoutASouthboundTheRehearsalServesASocketOfItsOwn() throws Exception {
        Path state = Files.createDirectories(dir.resolve("state"));
        Path socket = dir.resolve("opensm.sock");
        DaemonConfig config = ConfigLoader.parse("""
                southbound:
                  enabled: false
                fabric:
                  expectedPgft: "PGFT(2;2,2;1,2;1,1)"
                state:
                  directory: "%s"
                opensm:
                  socket: "%s"
                """.formatted(state, socket), "n1.yaml");
        DaemonConfig scratch = ManagerRehearsal.scratch(config, dir.resolve("copy"));
        assertThat(scratch.southbound().enabled()).isFalse();
        assertThat(scratch.opensm().socket()).isEqualTo(dir.resolve("copy").resolve("rehearsal-opensm.sock").toString());
        assertThat(AgentRehearsal.applies(config, (spec, southbound, identity, provider) -> () -> { })).isFalse();
        assertThat(ManagerRehearsal.run(config)).as("rehearsal time").isNotNegative();
        assertThat(socket).as("OpenSM's socket left to the active manager").doesNotExist();
        try (Stream<Path> files = Files.list(state)) {
            assertThat(files).as("the state directory").isEmpty();
        }
    }

    private static void initPki(Path pki) {
        new org.fabricmanager.pki.PkiDirectory(pki).init("fabric", java.time.Duration.ofDays(1), java.util.List.of("localhost"),
                java.util.List.of(InetAddress.getLoopbackAddress()), java.time.Duration.ofDays(1), java.time.Clock.systemUTC());
    }

    private static Map<String, byte[]> contents(Path root) throws Exception {
        Map<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (Files.isRegularFile(p)) {
                    out.put(root.relativize(p).toString(), Files.readAllBytes(p));
                }
            }
        }
        return out;
    }
}
