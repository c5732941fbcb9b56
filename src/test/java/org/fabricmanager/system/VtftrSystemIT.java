package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.cli.Main;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.VcRules;
import org.fabricmanager.routing.VcText;
import org.fabricmanager.routing.analysis.DeadlockAnalyzer;
import org.fabricmanager.routing.analysis.DeadlockReport;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.VirtualChannels;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.HdftGenerator;
import org.fabricmanager.topology.HdftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * VTFTR in the production shape: {@code run} with {@code routing.engine: vtftr} and {@code fabric.expectedHdft}
 * in one process, {@code simulate --hdft} in another. Every switch must hold exactly the LFT and the VC rules
 * that an offline {@code route --engine vtftr} computes on the daemon's live topology (compared by the hashes
 * the agents acknowledged, and the rules by content through REST), the (link, VC) dependency graph of those
 * tables must be acyclic, and every surviving leaf pair routed; then two power-killed leaves of one row are
 * routed around, one re-route each. An agent that predates VC rules is refused.
 */
class VtftrSystemIT {
    static final HdftSpec SPEC = HdftSpec.parse("HDFT(4x4;2;1;1)");

    @TempDir
    Path work;

    /**
     * A power kill reaches the daemon as the switch's session closing and its neighbours' PORT_STATUS, from
     * another process: a 1 s settle window makes them one re-route even on a loaded machine.
     */
    private Path config(String engineLine) throws Exception {
        Path config = work.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                fabric:
                  expectedHdft: "%s"
                routing:
                  engine: %s
                  settleMs: 1000
                faults:
                  settleMs: 1000
                discovery:
                  settleMs: 3000
                  maxWaitMs: 60000
                state:
                  directory: "%s"
                security:
                  insecure: true
                """.formatted(SPEC, engineLine, work.resolve("state")));
        return config;
    }

    @Test
    void vtftrFabricConvergesWithItsRulesAndRoutesAroundTwoDeadLeavesOfARow() throws Exception {
        Fabric fabric = HdftGenerator.generate(SPEC);
        int switches = fabric.switches().size();
        try (FabricProcesses fp = new FabricProcesses(work)) {
            fp.startDaemon(config("vtftr"), "-Xmx256m");
            FabricProcesses.Simulator sim = fp.startSimulator("sim", "-Xmx256m", List.of("--hdft", SPEC.toString()));
            JsonNode st = fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED")
                    && s.at("/switches/connected").asInt() == switches, "first convergence", 120);
            assertThat(st.at("/routing/engine").asText()).isEqualTo("vtftr");
            assertThat(st.at("/routing/valid").asBoolean()).isTrue();
            assertThat(st.at("/routing/deadlockFree").asBoolean()).as("the daemon's own (link, VC) check").isTrue();
            assertLiveTablesMatchOfflineRoute(fp, "intact", switches);

            // two leaves of row 0 lose power, one after the other: each is one re-route
            long[] dead = {HdftGenerator.leafGuid(SPEC, 1, 0), HdftGenerator.leafGuid(SPEC, 2, 0)};
            for (int k = 0; k < dead.length; k++) {
                long computations = st.at("/routing/computations").asLong();
                long version = st.at("/routing/version").asLong();
                long seq = fp.lastSeq();
                sim.command("kill " + Guids.format(dead[k]) + " power");
                int expected = switches - k - 1;
                fp.awaitEvent("REACTION", seq, 120);
                st = fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED")
                        && s.at("/routing/version").asLong() > version && s.at("/switches/connected").asInt() == expected,
                        "re-route around leaf " + Guids.format(dead[k]), 120);
                assertThat(st.at("/routing/computations").asLong()).as("one re-route for leaf %d", k + 1)
                        .isEqualTo(computations + 1);
                assertThat(st.at("/routing/deadlockFree").asBoolean()).isTrue();
                Fabric live = assertLiveTablesMatchOfflineRoute(fp, "dead" + (k + 1), expected);
                assertThat(live.switchByGuid(dead[k])).isEmpty();
            }
            assertThat(Files.readString(work.resolve("daemon.err"))).contains("routing v1 computed")
                    .containsPattern("tables converged: v\\d+ on " + (switches - 2) + "/" + (switches - 2) + " switches")
                    .contains("(link, VC) check ").contains(": acyclic");
        }
    }

    @Test
    void agentWithoutVcRulesIsRefusedForAVtftrFabric() throws Exception {
        try (FabricProcesses fp = new FabricProcesses(work)) {
            fp.startDaemon(config("vtftr"), "-Xmx256m");
            fp.startSimulator("old", "-Xmx256m", List.of("--hdft", SPEC.toString(), "--no-vc-rules"));
            Path err = work.resolve("daemon.err");
            String leaf = Guids.format(HdftGenerator.leafGuid(SPEC, 0, 0));
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline && refusals(err, leaf) == 0) {
                Thread.sleep(200);
            }
            assertThat(Files.readString(err)).contains(" refused: this fabric is routed with vtftr, whose tables are "
                    + "deadlock-free only with the virtual-channel rules of VC_RULES, and this agent does not announce them");
            // one warning per switch however often its agent retries (its backoff starts at 100 ms)
            Thread.sleep(3_000);
            assertThat(refusals(err, leaf)).isEqualTo(1);
            JsonNode st = fp.get("/api/v1/status");
            assertThat(st.at("/switches/connected").asInt()).isZero();
            assertThat(Files.readString(work.resolve("old.out"))).contains("UNSUPPORTED_VERSION");
        }
    }

    private static long refusals(Path err, String guid) throws Exception {
        return Files.readString(err).lines().filter(l -> l.contains("switch " + guid + " ") && l.contains(" refused: "))
                .count();
    }

    @Test
    void theDaemonRefusesEnginesThatDoNotFitTheExpectedShape() throws Exception {
        Files.writeString(work.resolve("pgft.yaml"), """
                fabric:
                  expectedPgft: "PGFT(2;4,4;1,4;1,1)"
                routing:
                  engine: vtftr
                """);
        Files.writeString(work.resolve("hdft.yaml"), """
                fabric:
                  expectedHdft: "HDFT(4x4;2;1;1)"
                routing:
                  engine: dmodc
                """);
        assertThat(runAndFail("pgft.yaml")).containsOnlyOnce("vtftr routes 2-D fat trees (fabric.expectedHdft), but "
                + "fabric.expectedPgft is PGFT(2;4,4;1,4;1,1): use dmodc-home for a PGFT");
        assertThat(runAndFail("hdft.yaml")).containsOnlyOnce("dmodc routes PGFTs and its tables can deadlock on the 2-D "
                + "fat tree of fabric.expectedHdft (HDFT(4x4;2;1;1)): use vtftr");
    }

    private String runAndFail(String config) throws Exception {
        FabricProcesses.CliResult run = FabricProcesses.cli(work, "-Xmx128m", 60, "run", "--config",
                work.resolve(config).toString(), "--southbound-port", "0", "--http-port", "0");
        assertThat(run.exit()).as(run.all()).isNotZero();
        return run.all();
    }

    /**
     * Routes the daemon's live topology offline ({@code route --engine vtftr}, which must find every leaf pair
     * routed), and checks every connected switch against it: the LFT hash and rules hash it acknowledged, the
     * rules by content, and the (link, VC) dependency graph of the tables is acyclic. Returns the live fabric.
     */
    private Fabric assertLiveTablesMatchOfflineRoute(FabricProcesses fp, String name, int switches) throws Exception {
        Path topology = work.resolve(name + ".json");
        Files.writeString(topology, fp.get("/api/v1/topology").toString());
        Fabric live = FabricJson.read(topology);
        assertThat(live.switches()).hasSize(switches);
        Path lft = work.resolve(name + ".lft");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8))
                .run("route", "--topology", topology.toString(), "--engine", "vtftr", "--lft-out", lft.toString());
        assertThat(code).as("offline route (every surviving leaf pair routed): %s", err).isZero();
        ForwardingTables expected = VcText.readWithTables(lft);
        VcRules rules = expected.vcRules().orElseThrow();
        TableSet wire = new TableSet(1, expected);
        for (int s = 0; s < expected.switchCount(); s++) {
            String guid = Guids.format(expected.switchGuid(s));
            JsonNode sw = fp.get("/api/v1/switches/" + guid);
            assertThat(sw.path("inSync").asBoolean()).as("%s in sync (%s)", guid, name).isTrue();
            assertThat(sw.path("tableHash").asText()).as("%s LFT (%s)", guid, name)
                    .isEqualTo(Guids.format(TableHash.of(expected.copyRow(s))));
            JsonNode vc = fp.get("/api/v1/switches/" + guid + "/vc");
            assertThat(vc.path("heldRulesHash").asText()).as("%s acked rules (%s)", guid, name)
                    .isEqualTo(Guids.format(wire.rulesHash(s)));
            List<String> ports = new ArrayList<>();
            for (int p = 1; p <= rules.ports(s); p++) {
                ports.add(rules.portClass(s, p).name().toLowerCase());
            }
            List<String> got = new ArrayList<>();
            vc.path("ports").forEach(n -> got.add(n.asText()));
            assertThat(got).as("%s port classes (%s)", guid, name).isEqualTo(ports);
            List<String> transitions = new ArrayList<>();
            vc.path("transitions").forEach(n -> transitions.add(n.asText()));
            assertThat(transitions).isEqualTo(rules.transitions(s).stream().map(Object::toString).toList());
        }
        RoutedFabric routed = RoutedFabric.of(live.index(), expected);
        DeadlockReport report = new DeadlockAnalyzer(routed, VirtualChannels.of(expected), 1).analyze();
        assertThat(report.deadlockFree()).as("(link, VC) graph of the live tables (%s): %s", name, report.cycle()).isTrue();
        return live;
    }
}
